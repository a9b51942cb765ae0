package stats

import (
	"errors"
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// Hand-computed vectors: each "want" comes from a closed form worked out
// by hand, never from the function under test.
func TestClopperPearsonUpper(t *testing.T) {
	for _, c := range []struct {
		x, n int
		want float64
	}{
		{0, 10, 1 - math.Pow(0.05, 0.1)}, // 0.258866…
		{0, 40, 1 - math.Pow(0.05, 1.0/40)},
		{0, 1, 0.95},
		{3, 3, 1},
		{1, 1080, 0}, // checked by the defining equation below
		{1, 10, 0},
		{5, 20, 0},
	} {
		got, err := ClopperPearsonUpper(c.x, c.n, 0.05)
		if err != nil {
			t.Fatalf("ClopperPearsonUpper(%d, %d) = %v", c.x, c.n, err)
		}
		if c.want != 0 {
			if !near(got, c.want, 1e-9) {
				t.Errorf("ClopperPearsonUpper(%d, %d) = %.9f, want %.9f", c.x, c.n, got, c.want)
			}
			continue
		}
		// The defining equation, summed by hand for the cases above.
		var cdf float64
		switch {
		case c.x == 1:
			q := 1 - got
			cdf = math.Pow(q, float64(c.n)) + float64(c.n)*got*math.Pow(q, float64(c.n-1))
		case c.x == 5 && c.n == 20:
			binom := []float64{1, 20, 190, 1140, 4845, 15504}
			for k, b := range binom {
				cdf += b * math.Pow(got, float64(k)) * math.Pow(1-got, float64(20-k))
			}
		}
		if !near(cdf, 0.05, 1e-9) {
			t.Errorf("ClopperPearsonUpper(%d, %d) = %.9f: P(X≤x) there is %.9f, want 0.05", c.x, c.n, got, cdf)
		}
	}
	// Table value: one event in ten, one-sided 95 %: 0.3942.
	if got, _ := ClopperPearsonUpper(1, 10, 0.05); !near(got, 0.3942, 5e-5) {
		t.Errorf("ClopperPearsonUpper(1, 10) = %.5f, want 0.3942", got)
	}
	if _, err := ClopperPearsonUpper(0, 0, 0.05); !errors.Is(err, ErrEmpty) {
		t.Errorf("ClopperPearsonUpper(0, 0) = %v, want ErrEmpty", err)
	}
}

func TestClusterSE(t *testing.T) {
	// Two clusters {1,1,0,0} and {1,0,0,0}: mean 3/8; residual sums
	// 2 − 4·3/8 = 0.5 and 1 − 1.5 = −0.5; V = 2/1 · 0.5 / 64 = 1/64.
	y := []float64{1, 1, 0, 0, 1, 0, 0, 0}
	cl := []string{"a", "a", "a", "a", "b", "b", "b", "b"}
	m, se, g, err := ClusterSE(y, cl)
	if err != nil || g != 2 || !near(m, 0.375, 1e-12) || !near(se, 0.125, 1e-12) {
		t.Errorf("ClusterSE = %v, %v, %d, %v; want 0.375, 0.125, 2, nil", m, se, g, err)
	}
	// Three clusters {1,0}, {1,1}, {0,0}: mean 1/2; sums 0, 1, −1;
	// V = 3/2 · 2 / 36 = 1/12.
	m, se, g, err = ClusterSE([]float64{1, 0, 1, 1, 0, 0}, []string{"x", "x", "y", "y", "z", "z"})
	if err != nil || g != 3 || !near(m, 0.5, 1e-12) || !near(se, math.Sqrt(1.0/12), 1e-12) {
		t.Errorf("ClusterSE = %v, %v, %d, %v; want 0.5, %v, 3, nil", m, se, g, err, math.Sqrt(1.0/12))
	}
	// One semantic unit: no interval, whatever the number of episodes.
	if _, _, g, err := ClusterSE([]float64{1, 0, 1}, []string{"s", "s", "s"}); !errors.Is(err, ErrOneCluster) || g != 1 {
		t.Errorf("ClusterSE(one cluster) = %d, %v; want 1, ErrOneCluster", g, err)
	}
}

func TestPassK(t *testing.T) {
	// C(3,2)/C(5,2) = 3/10; C(5,2)/C(5,2) = 1; C(1,2) = 0 → mean 1.3/3.
	got, err := PassK([]int{5, 5, 5}, []int{3, 5, 1}, 2)
	if err != nil || !near(got, 1.3/3, 1e-12) {
		t.Errorf("PassK = %v, %v; want %v", got, err, 1.3/3)
	}
	// k = 1 is the plain success fraction: (2/4 + 4/4)/2.
	if got, _ := PassK([]int{4, 4}, []int{2, 4}, 1); !near(got, 0.75, 1e-12) {
		t.Errorf("PassK(k=1) = %v, want 0.75", got)
	}
	// C(38,3)/C(40,3) = 8436/9880.
	if got, _ := PassK([]int{40}, []int{38}, 3); !near(got, 8436.0/9880, 1e-12) {
		t.Errorf("PassK(38 of 40, k=3) = %v, want %v", got, 8436.0/9880)
	}
	if _, err := PassK([]int{5, 2}, []int{5, 2}, 3); !errors.Is(err, ErrTooFewTrials) {
		t.Errorf("PassK(cell of 2, k=3) = %v, want ErrTooFewTrials", err)
	}
}

func TestPaired(t *testing.T) {
	a := []bool{true, true, false, false, true, true}
	b := []bool{true, false, true, false, false, false}
	cl := []string{"s1", "s1", "s1", "s2", "s2", "s2"}
	r, err := Paired(a, b, cl)
	if err != nil {
		t.Fatal(err)
	}
	// d = 0, 1, −1, 0, 1, 1: mean 1/3; sums by cluster 0 − 3·(1/3) = −1 and
	// 2 − 1 = 1; V = 2 · 2 / 36 = 1/9.
	if r.Pairs != 6 || r.Both != 1 || r.OnlyA != 3 || r.OnlyB != 1 || r.Neither != 1 ||
		!near(r.Mean, 1.0/3, 1e-12) || !near(r.SE, 1.0/3, 1e-12) || r.Err != nil {
		t.Errorf("Paired = %+v", r)
	}
	r, _ = Paired(a[:3], b[:3], cl[:3])
	if !errors.Is(r.Err, ErrOneCluster) {
		t.Errorf("Paired(one cluster).Err = %v, want ErrOneCluster", r.Err)
	}
}
