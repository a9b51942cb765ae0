package engine

// Graded is implemented by a [Domain] that publishes a [GradingContract] for
// the scenario it runs. [Run] copies it into [Episode.Contract], so an
// evaluator (which imports no domain) can grade the episode from data.
type Graded interface {
	GradingContract() *GradingContract
}
