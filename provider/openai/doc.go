// Package openai is the model-backed agent: an [engine.Agent] that speaks
// the OpenAI Responses HTTP API through a real net/http client and writes
// what happened on the wire to the execution ledger.
//
// Per turn the agent builds the request from the observation (the model
// projection's canonical JSON is the user message; six function tools, one
// per decision kind; tool_choice required; one call per turn), checks the
// run's call bound and wall-clock deadline, reserves the request's worst
// case with the cost guard ([provider.Guard]) before dispatch, sends it,
// and reads the answer. The call row it appends carries the request
// identity digest (what the build pins about the request) beside the wire
// digest (SHA-256 of the exact bytes handed to the transport), the one
// attempt with its HTTP status, fault class, usage, measured or forfeited
// amount, response-id digest and normalized-response digest, and the
// decision's digest. Latencies and instants come from the injected clock.
//
// What the agent does with an answer:
//
//   - a 200 body it reads as a Responses answer from the pinned model
//     becomes a decision: exactly one call of an offered function with
//     exactly that function's arguments, or a classified MALFORMED
//     (no call, several calls, unknown function, malformed arguments,
//     output truncated at the ceiling);
//   - a 200 body it declines (not one strict JSON object, another model,
//     a status it does not read) is provider_response_invalid: the
//     response was received, nothing was taken from it;
//   - any other status is a typed fault (429 rate limited, 5xx server
//     error, 401/403 authentication, 400 and other 4xx rejected, 404 and
//     3xx configuration), response received;
//   - a transport error is provider_network_error (provider_timeout on a
//     deadline), no response received.
//
// A fault or a control stop ends the run with a [*Failure]: the run is
// excluded and writes no artefact. The agent makes one attempt per call
// (no retries), reads no credential (an Authorization value, if any, is
// handed in), refuses redirects, and never consults proxy settings.
//
// # Refusals
//
// [ErrEndpoint] (a base URL the ledger cannot record), [ErrWireDispatch]
// (the transport was handed something other than the one body the turn
// records) and [ErrRunIdentity] (an episode of another operation instance).
package openai
