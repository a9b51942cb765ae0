// Package refusaltest is the assertion tests make of a refusal: that an
// error carries the class a [refusal.Refusal] names. Only tests import it.
package refusaltest

import (
	"testing"

	"github.com/obaudit/obaudit/refusal"
)

// Want fails t now unless err carries want's class, saying which class (if
// any) it carries instead.
func Want(t testing.TB, err error, want *refusal.Refusal) {
	t.Helper()
	if c, _ := refusal.ClassOf(err); c != want.Class {
		t.Fatalf("err = %v (class %q), want class %s", err, c, want.Class)
	}
}
