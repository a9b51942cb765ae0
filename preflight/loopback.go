package preflight

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"

	"github.com/obaudit/obaudit/refusal"
)

// Loopback is the scripted provider served over TLS on a loopback
// listener, and the one client that may reach it.
type Loopback struct {
	srv *httptest.Server
	// BaseURL is https://127.0.0.1:<port>/v1.
	BaseURL string
	// Client is a real *http.Client: TLS pinned to the server's
	// certificate, no proxy (the environment is never consulted), no
	// proxy, connections kept alive between one episode's calls, and a
	// dialer that refuses any address that is not a loopback IP.
	Client *http.Client
}

// Serve starts h on a loopback TLS listener. The certificate is the
// standard library's fixed test certificate for 127.0.0.1; the client
// trusts it and nothing else.
func Serve(h http.Handler) *Loopback {
	srv := httptest.NewUnstartedServer(h)
	srv.StartTLS()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	dialer := &net.Dialer{}
	// Calls reuse their connection (keep-alive), as a vendor SDK's client
	// does: a TLS handshake per call was a fifth of a model-backed
	// campaign's CPU. A new connection (the first, or after the server
	// closed one) resumes its TLS 1.3 session.
	transport := &http.Transport{
		Proxy:               nil,
		TLSClientConfig:     &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12, ClientSessionCache: tls.NewLRUClientSessionCache(16)},
		MaxIdleConnsPerHost: 16,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if err := checkLoopback(addr); err != nil {
				return nil, err
			}
			c, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			if err := checkLoopback(c.RemoteAddr().String()); err != nil {
				c.Close()
				return nil, err
			}
			return c, nil
		},
	}
	return &Loopback{srv: srv, BaseURL: srv.URL + "/v1", Client: &http.Client{Transport: transport}}
}

// Close stops the server.
func (l *Loopback) Close() {
	l.srv.Close()
	if t, ok := l.Client.Transport.(*http.Transport); ok {
		t.CloseIdleConnections()
	}
}

// checkLoopback refuses an address whose host is not a loopback IP
// literal: the preflight's client reaches nothing but this machine.
func checkLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return refusal.New(ErrNotLoopback, "%q is not a host:port address", addr)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return refusal.New(ErrNotLoopback, "%s is not a loopback address; the preflight reaches no service", host)
	}
	return nil
}

// CertificatePEM is the server's certificate, PEM-encoded: the one root a
// client must trust to reach it (a live run's --ca-file, in tests).
func (l *Loopback) CertificatePEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: l.srv.Certificate().Raw})
}
