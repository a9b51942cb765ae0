package refusal_test

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/refusal"
)

var errTest = refusal.Sentinel("testarea/some-class")

type classed struct{ class string }

func (c classed) Error() string        { return c.class + ": x" }
func (c classed) RefusalClass() string { return c.class }

func TestIsMatchesByClass(t *testing.T) {
	err := refusal.New(errTest, "row %d", 3)
	if !errors.Is(err, errTest) {
		t.Fatalf("errors.Is(New(errTest), errTest) = false")
	}
	wrapped := fmt.Errorf("reading: %w", err)
	if !errors.Is(wrapped, errTest) {
		t.Fatalf("errors.Is through fmt wrapping = false")
	}
	other := refusal.Sentinel("testarea/other-class")
	if errors.Is(err, other) {
		t.Fatalf("errors.Is matched a different class")
	}
	// A Refusal matches any Classed target of its class (e.g. canon's errors).
	if !refusal.New(errTest, "x").Is(classed{"testarea/some-class"}) {
		t.Fatalf("Refusal.Is(classed of the same class) = false")
	}
	if refusal.New(errTest, "x").Is(classed{"testarea/other"}) {
		t.Fatalf("Refusal.Is(classed of another class) = true")
	}
}

func TestClassOfAndDetail(t *testing.T) {
	err := fmt.Errorf("ctx: %w", refusal.New(errTest, "detail here"))
	c, ok := refusal.ClassOf(err)
	if !ok || c != "testarea/some-class" {
		t.Fatalf("ClassOf = %q, %v", c, ok)
	}
	if d := refusal.Detail(err); d != "detail here" {
		t.Fatalf("Detail = %q", d)
	}
	if _, ok := refusal.ClassOf(errors.New("plain")); ok {
		t.Fatal("ClassOf(plain error) reported a class")
	}
	c, ok = refusal.ClassOf(classed{"canon/syntax"})
	if !ok || c != "canon/syntax" {
		t.Fatalf("ClassOf(classed) = %q, %v", c, ok)
	}
	if d := refusal.Detail(classed{"canon/syntax"}); d != "x" {
		t.Fatalf("Detail(classed) = %q", d)
	}
}

func TestWrapKeepsCause(t *testing.T) {
	cause := errors.New("disk says no")
	err := refusal.Wrap(errTest, cause, "reading %s", "f")
	if !errors.Is(err, cause) || !errors.Is(err, errTest) {
		t.Fatalf("Wrap lost its class or cause: %v", err)
	}
}

func TestRegistry(t *testing.T) {
	if !slices.Contains(refusal.Classes(), "testarea/some-class") {
		t.Fatal("Classes() misses a registered sentinel")
	}
	if !slices.IsSorted(refusal.Classes()) {
		t.Fatal("Classes() not sorted")
	}
	for _, bad := range []refusal.Class{"NoSlash", "area/Upper", "area/trailing-", "/x", "area/a--b", "testarea/some-class"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", bad)
				}
			}()
			refusal.Register(bad)
		}()
	}
}

// TestValidClassIsThePattern holds the byte loop to the documented form,
// ^[a-z][a-z0-9]*/[a-z0-9]+(-[a-z0-9]+)*$, on every string of up to six
// bytes over an alphabet that reaches each branch.
func TestValidClassIsThePattern(t *testing.T) {
	re := regexp.MustCompile(`^[a-z][a-z0-9]*/[a-z0-9]+(-[a-z0-9]+)*$`)
	const alphabet = "a9-/A_"
	var walk func(s string)
	walk = func(s string) {
		if got, want := refusal.ValidClass(s), re.MatchString(s); got != want {
			t.Errorf("ValidClass(%q) = %v, the pattern says %v", s, got, want)
		}
		if len(s) < 6 {
			for i := range len(alphabet) {
				walk(s + alphabet[i:i+1])
			}
		}
	}
	walk("")
	for _, c := range refusal.Classes() {
		if !refusal.ValidClass(string(c)) || !re.MatchString(string(c)) {
			t.Errorf("registered class %q", c)
		}
	}
}
