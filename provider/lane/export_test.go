package lane

import "net/http"

// WrapTransport replaces the transport behind the agent's capture with
// wrap(capture, transport), so a test can hand the capture a second
// request inside one turn.
func WrapTransport(a *Agent, wrap func(capture, next http.RoundTripper) http.RoundTripper) {
	a.capture.next = wrap(a.capture, a.capture.next)
}
