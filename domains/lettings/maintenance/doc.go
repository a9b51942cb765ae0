// Package maintenance is the lettings-maintenance operation pack: upstream
// OperateBench's synthetic maintenance operation (operation type
// "lettings.maintenance.synthetic", [OperationType]), run by the engine as
// an [engine.Domain], with its reference agent.
//
// # The operation
//
// A customer reports a recurring leak; the agent runs the repair to a
// business terminal by proposing actions against an operation record it
// can only read through published tools. It books a supplier visit
// (request_supplier_visit), obtains a human approval for a quote above the
// policy threshold (request_approval), authorises the approved work
// (authorise_supplier_work), has the invoice validated
// (request_invoice_validation), requests payment (request_payment), tells
// actors what they need to know (send_message) and, when approval is
// refused or expires, opens a typed exception checkpoint for a human
// operator (request_exception_resolution). Completion is a guarded terminal
// proposal. With the work verified, the invoices validated and payment
// settled (when the work is payable) and the customer told, the operation closes provisionally with a reopen
// window (a customer report within it that the fault persists reopens it
// into a warranty revisit cycle) and is finalized when the window expires
// ("completed_successfully"). Once a human operator has taken ownership
// through an exception checkpoint and the customer has been told, the same
// proposal ends it as "transferred_to_human_ownership". These are the only
// two terminals it can produce ([ProducibleTerminals]).
//
// The world is authored, not simulated: actors (customer, supplier,
// approver, human operator, the authoritative verification and payment
// systems, the scheduler), each holding named authorities; an invented
// policy (currency, approval threshold, reminder, deadline, validity,
// provisional-close and follow-up windows, per-invocation bounds, horizon);
// message fixtures; hidden truth the agent never sees; and three frozen
// scenarios (V1: approval granted, provisional reopen, warranty revisit,
// finalized; V2: approval rejected, justified exception, transferred; V3:
// approval unanswered, reminder and deadline, transferred), each with its
// timed and conditional events, expected terminal, human-checkpoint budget
// and expected event rejections. The embedded default is obaudit's own file
// (operation/lettings_maintenance_synthetic_v1.yaml, operation 0.6.0)
// carrying upstream's facts ([DefaultOperation], [DefaultSpec]).
//
// # Its records
//
// The operation record has 21 observable roots ([ObservableRoots]): the
// case (phase, issue, classification, customer resolution, current cycle,
// ownership transfer and its notice, provisional close, reopen count,
// terminal, replay_final) and the registries cycles, quotes, approvals,
// exceptions, invoices, obligations, payment, assertions (actor claims),
// authoritative_records (attendance, work evidence, invoice validation,
// payment settlement) and communications; plus hidden. Eight read tools
// ([Tools]) each serve a fixed set of roots under one source and authority
// class, with a record version that is a prefix of the SHA-256 of the
// served records' canonical JSON. The final state (the engine's
// final_state) is every root plus hidden, in canonical key order.
//
// A claim is never a fact: an event's provenance is its actor's authority
// in the registry ([Operation.EventAuthority], [RoleAuthority]), an assertion is
// recorded as an actor claim, and attendance, work, invoice validity and
// settlement exist only as authoritative records an agent must read and
// cite.
//
// # Where each rule lives
//
//   - yaml.go, load.go, spec.go, errors.go: reading a spec. Strict YAML
//     (internal/strictyaml, with a plain scalar that YAML 1.1 and 1.2 read
//     differently refused), the schema, references and authorities of
//     every authored field ([LoadSpec], [FromTree]; classes spec/…), the
//     model ([Spec], [Scenario]) and its identity ([Spec.SemanticPayload],
//     [Spec.ComputeDigest], checked again by [Spec.Verify] before every run
//     of a shared spec; [OpenOperation] binds a spec of the run's own).
//   - operation.go: binding one scenario ([NewOperation]) into the engine's
//     [engine.Plan] and [engine.Static], and the event reducers
//     (ReduceEvent: actor registry, event authority, exact payload
//     contract, then one reducer per event type).
//   - actions.go: the action handlers (ApplyAction: payload contract,
//     citation of authoritative records, then one handler per action type)
//     and the terminal guard (ApplyTerminal: no open checkpoint or
//     obligation; then either the transfer with its notice sent and no
//     payment behind it, or the provisional close of a verified, settled,
//     notified cycle).
//   - vocab.go: the vocabulary as data: event authorities, action and wake
//     types, role authority classes, payload contracts, and the read and
//     citation contract of every outcome key ([RequiredReads]) with its
//     selectors; [Vocabulary], the words no Go file outside the pack may
//     spell (repo_test.go TestPackBoundary).
//   - state.go: the records and the roots, each declared once
//     (engine.Members: a record's members in key order, writeRoot for a
//     root), from which both the trees and the canonical bytes
//     (engine.StateEncoder) derive; TestRootEncodersMatchTrees holds the
//     two forms equal over states with every optional field set.
//   - retrieval.go: the catalogue and Serve (records re-encoded only when a
//     reducer or handler may have changed them; a test re-derives every
//     served record from scratch).
//   - finalstate.go: [ValidateFinalState], the reader's check that an
//     untrusted final_state is exactly the canonical state this operation
//     writes (classes state/…), and the recovery rule
//     ([RecoveryOperationVersion], [RecoveryFixture]); the registry
//     (domains.Pack) hands both to the artefact reader.
//   - operation.go also names the types the engine's hosted ASK and
//     ESCALATE decisions become (engine.Static.Hosted).
//   - grading.go: the [engine.GradingContract] a run publishes, the one
//     contract the evaluator grades by (a run, the gate, a re-grade): with
//     which action and event types each rubric rule is about
//     (engine.RubricTypes). The rubric itself (dimensions, finding codes) is
//     the evaluator's, which imports no pack.
//   - agent.go: the reference agent ([Reference]): a decision cascade over
//     what it has been served ([Decide], [View]) and a read planner
//     ([Planner]) that plans reads from the phase and tops them up with
//     whatever a decision or its action schema still needs.
//
// The eight negative-control agents are in package negative, their
// registry with the reference in package agents, what each negative must
// break in the separately authored oracle (package oracle), and the
// binding of spec, agents and oracle for the acceptance gate (which names
// no pack) in package acceptance, with the V2 notification-fault
// expectation.
//
// Nothing is parsed or compiled at package initialisation (only small
// lookup tables are built): the embedded spec is loaded on first use of
// [DefaultSpec], and the scalar patterns and payload contracts are built on
// first use.
package maintenance
