// Package stats holds the population statistics of a campaign report, each
// by its exact formula: the Clopper–Pearson one-sided upper bound of a
// binomial proportion, the cluster-robust standard error of a mean with
// the finite-cluster correction, the unbiased pass^k estimator and paired
// differences. It is a standard-library-only leaf; every function is
// deterministic (no randomness, no iteration over maps).
package stats

import (
	"errors"
	"math"
)

// ErrOneCluster is returned by [ClusterSE] and [Paired] when the data hold
// fewer than two clusters: with one semantic unit there is no interval.
var ErrOneCluster = errors.New("stats: one semantic unit: no interval")

// ErrTooFewTrials is returned by [PassK] when a cell has fewer than k
// trials: the estimator is undefined there.
var ErrTooFewTrials = errors.New("stats: a cell has fewer than k trials")

// ErrEmpty is returned for an empty denominator (undefined, never zero).
var ErrEmpty = errors.New("stats: empty denominator")

// lchoose is log C(n, k).
func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// BinomialCDF is P(X ≤ x) for X ~ Binomial(n, p).
func BinomialCDF(x, n int, p float64) float64 {
	switch {
	case x < 0:
		return 0
	case x >= n:
		return 1
	case p <= 0:
		return 1
	case p >= 1:
		return 0
	}
	s := 0.0
	lp, lq := math.Log(p), math.Log1p(-p)
	for k := 0; k <= x; k++ {
		s += math.Exp(lchoose(n, k) + float64(k)*lp + float64(n-k)*lq)
	}
	return math.Min(s, 1)
}

// ClopperPearsonUpper is the exact one-sided (1−alpha) upper confidence
// bound for a proportion after x events in n trials: the p at which
// P(X ≤ x | n, p) = alpha (for x = 0 that is 1 − alpha^(1/n); for x = n,
// 1). Zero observed events give a positive bound: zero observed is not
// zero risk.
func ClopperPearsonUpper(x, n int, alpha float64) (float64, error) {
	if n <= 0 {
		return 0, ErrEmpty
	}
	if x < 0 || x > n || alpha <= 0 || alpha >= 1 {
		return 0, errors.New("stats: ClopperPearsonUpper needs 0 ≤ x ≤ n and 0 < alpha < 1")
	}
	if x == n {
		return 1, nil
	}
	if x == 0 {
		return 1 - math.Pow(alpha, 1/float64(n)), nil
	}
	lo, hi := float64(x)/float64(n), 1.0
	for range 200 {
		mid := (lo + hi) / 2
		if BinomialCDF(x, n, mid) > alpha {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, nil
}

// ClusterSE is the cluster-robust standard error of the mean of y, the
// observations grouped by cluster[i], with the finite-cluster correction
// G/(G−1):
//
//	ȳ = Σ y_i / N
//	V = G/(G−1) · Σ_g (Σ_{i∈g} (y_i − ȳ))² / N²
//
// It returns ȳ, √V and G; with fewer than two clusters, [ErrOneCluster].
func ClusterSE(y []float64, cluster []string) (mean, se float64, g int, err error) {
	if len(y) == 0 || len(y) != len(cluster) {
		return 0, 0, 0, ErrEmpty
	}
	n := float64(len(y))
	for _, v := range y {
		mean += v
	}
	mean /= n
	// Clusters in order of first appearance (deterministic sums).
	idx := map[string]int{}
	var sums []float64
	for i, c := range cluster {
		j, ok := idx[c]
		if !ok {
			j = len(sums)
			idx[c] = j
			sums = append(sums, 0)
		}
		sums[j] += y[i] - mean
	}
	g = len(sums)
	if g < 2 {
		return mean, 0, g, ErrOneCluster
	}
	v := 0.0
	for _, s := range sums {
		v += s * s
	}
	v *= float64(g) / float64(g-1) / (n * n)
	return mean, math.Sqrt(v), g, nil
}

// PassK is the unbiased estimator of pass^k (the probability that k
// independent trials of a cell all succeed), averaged over cells: per cell
// with n trials and c successes, C(c,k)/C(n,k). A cell with fewer than k
// trials is refused ([ErrTooFewTrials]).
func PassK(n, c []int, k int) (float64, error) {
	if len(n) == 0 || len(n) != len(c) || k < 1 {
		return 0, ErrEmpty
	}
	s := 0.0
	for i := range n {
		if n[i] < k {
			return 0, ErrTooFewTrials
		}
		if c[i] >= k {
			s += math.Exp(lchoose(c[i], k) - lchoose(n[i], k))
		}
	}
	return s / float64(len(n)), nil
}

// PairedResult is the paired difference of two subjects over the same
// units: counts of the four outcomes and the mean difference A − B.
type PairedResult struct {
	Pairs, Both, OnlyA, OnlyB, Neither int
	Mean                               float64
	// SE is the cluster-robust standard error of Mean (NaN-free; zero and
	// Err set when there is one cluster).
	SE       float64
	Clusters int
	Err      error
}

// Paired computes the paired difference of two 0/1 outcome vectors over
// the same units (a[i] and b[i] are one unit), clustered by cluster[i].
func Paired(a, b []bool, cluster []string) (PairedResult, error) {
	if len(a) == 0 || len(a) != len(b) || len(a) != len(cluster) {
		return PairedResult{}, ErrEmpty
	}
	r := PairedResult{Pairs: len(a)}
	d := make([]float64, len(a))
	for i := range a {
		switch {
		case a[i] && b[i]:
			r.Both++
		case a[i]:
			r.OnlyA++
			d[i] = 1
		case b[i]:
			r.OnlyB++
			d[i] = -1
		default:
			r.Neither++
		}
	}
	r.Mean, r.SE, r.Clusters, r.Err = ClusterSE(d, cluster)
	return r, nil
}
