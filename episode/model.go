package episode

import (
	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/refusal"
)

// FromModelEpisode grades an episode whose decisions came off a provider
// (under the engine version it names) and builds its contract-8 artefact
// with the model execution record ex and the provider execution binding b
// to the scored ledger that witnessed it. A model run with no binding
// writes no artefact: that is refused here, where the record would be
// built ([artefact.ErrBindingMissing]), as is an execution record that is
// not a model's ([artefact.ErrBindingUnexpected]).
func FromModelEpisode(ep *engine.Episode, ex *artefact.Execution, b *artefact.Binding) (*artefact.Artefact, error) {
	if ex == nil || ex.OutcomeSource != artefact.SourceModel {
		return nil, refusal.New(artefact.ErrBindingUnexpected, "/provider_execution: a provider binding is built for a model execution only")
	}
	if b == nil {
		return nil, refusal.New(artefact.ErrBindingMissing, "/provider_execution: this run says its decisions came off a provider and carries no binding to a scored execution ledger")
	}
	ev, err := grade(ep)
	if err != nil {
		return nil, err
	}
	return Build(ep, ev, ex, b)
}
