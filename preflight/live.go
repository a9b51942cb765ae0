package preflight

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/provider"
	"github.com/obaudit/obaudit/provider/lane"
	"github.com/obaudit/obaudit/provider/profile"
	"github.com/obaudit/obaudit/refusal"
)

// Refusal classes of a live run.
var (
	// ErrLiveRequired is returned when a model run was asked for without
	// --live: nothing is read, built, dialled or opened.
	ErrLiveRequired = refusal.Sentinel("run/live-required")
	// ErrRatesRequired is returned when a live run does not state both
	// rates and the cost cap: a live run has no default rates.
	ErrRatesRequired = refusal.Sentinel("run/rates-required")
	// ErrCredentialMissing is returned when the profile's credential
	// variable is unset or empty (the refusal names the variable, never a
	// value).
	ErrCredentialMissing = refusal.Sentinel("run/credential-missing")
	// ErrTrustRoots is returned when --ca-file holds no PEM certificate.
	ErrTrustRoots = refusal.Sentinel("run/trust-roots")
)

// LiveConfig is one live model run. Profile, Domain, EngineVersion,
// OutputDir, MaxCalls, the rates and cap, Credential, Now, ExecutionRunID
// and OperationInstanceID are required.
type LiveConfig struct {
	Profile *profile.Profile
	// BaseURL is the API root (https only); empty is the profile's
	// default_base_url.
	BaseURL string
	// RootCAs, when not nil, are the only roots the client trusts (a
	// self-hosted server, a test server); nil is the system's.
	RootCAs *x509.CertPool
	// Credential is the value cmd read from the profile's variable. It is
	// placed in the lane's header and written nowhere.
	Credential    string
	Domain        engine.Domain
	EngineVersion string
	// OutputDir is an existing directory of mode 0700: the ledger and (for
	// a scored run) the artefact are created in it, never overwritten.
	OutputDir string
	MaxCalls  int64
	// CostCapUSD, InputUSDPerMTok, OutputUSDPerMTok are the operator's cap
	// and pinned rates: all three required. PricingPolicyID names the rate
	// table (empty: "operator_live_pinned_v1").
	CostCapUSD, InputUSDPerMTok, OutputUSDPerMTok, PricingPolicyID string
	Now                                                            func() time.Time
	ExecutionRunID, OperationInstanceID                            string
	ArtefactOptions                                                artefact.Options
	Agents                                                         func(id string) (episode.Registered, bool)
	// Context, when cancelled (an operator interrupt), stops the run
	// before its next call (nil: context.Background()).
	Context context.Context
}

// LivePricingPolicyID is the rate table name of a live run that names none.
const LivePricingPolicyID = "operator_live_pinned_v1"

// CheckLive makes every check a live run needs before a client exists or
// a byte is sent: the call bound and token exposure, the operator's rates
// and cap (no defaults), the worst case against the cap, the credential's
// presence, the endpoint, and both output paths (the directory is a
// directory of mode 0700, neither file exists). It returns the resolved
// pricing.
func CheckLive(cfg LiveConfig) (execledger.Rates, execledger.Decimal, map[string]any, string, error) {
	var (
		rates execledger.Rates
		cap   execledger.Decimal
	)
	if err := CheckArguments(cfg.MaxCalls); err != nil {
		return rates, cap, nil, "", err
	}
	if cfg.InputUSDPerMTok == "" || cfg.OutputUSDPerMTok == "" || cfg.CostCapUSD == "" {
		return rates, cap, nil, "", refusal.New(ErrRatesRequired, "a live run states --input-usd-per-mtok, --output-usd-per-mtok and --cost-cap-usd; it has no defaults")
	}
	rates, cap, policy, err := pricing(Config{
		CostCapUSD: cfg.CostCapUSD, InputUSDPerMTok: cfg.InputUSDPerMTok, OutputUSDPerMTok: cfg.OutputUSDPerMTok,
		PricingPolicyID: cmp.Or(cfg.PricingPolicyID, LivePricingPolicyID),
	})
	if err != nil {
		return rates, cap, nil, "", err
	}
	if err := provider.CheckWorstCase(cfg.MaxCalls, rates, cap); err != nil {
		return rates, cap, nil, "", err
	}
	if cfg.Profile == nil {
		return rates, cap, nil, "", errors.New("preflight: a live run needs a profile")
	}
	if cfg.Credential == "" {
		return rates, cap, nil, "", refusal.New(ErrCredentialMissing, "%s is not set: the %s lane reads its credential from it and nowhere else", cfg.Profile.CredentialEnv, cfg.Profile.Lane.ID())
	}
	base := cmp.Or(cfg.BaseURL, cfg.Profile.DefaultBaseURL)
	if _, err := lane.ParseBaseURL(base); err != nil {
		return rates, cap, nil, "", err
	}
	ledgerName, artefactName := OutputNames(cfg.OperationInstanceID, FaultNone)
	if err := CheckOutputs(cfg.OutputDir, ledgerName, artefactName); err != nil {
		return rates, cap, nil, "", err
	}
	return rates, cap, policy, base, nil
}

// CheckOutputs refuses unless dir is a directory (not a link) of mode 0700
// and no name exists in it. The files are still created exclusively: this
// is the check made before the first call, not the guard.
func CheckOutputs(dir string, names ...string) error {
	st, err := os.Lstat(dir)
	switch {
	case err != nil:
		return err
	case st.Mode()&fs.ModeSymlink != 0:
		return refusal.New(safefs.ErrSymlink, "the output directory is a symbolic link")
	case !st.IsDir():
		return refusal.New(safefs.ErrNotDir, "the output directory is not a directory")
	case st.Mode().Perm() != 0o700:
		return refusal.New(execledger.ErrLocation, "the output directory is mode %#o, not 0700", st.Mode().Perm())
	}
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			return refusal.New(safefs.ErrExists, "%s already exists in the output directory; evidence is never overwritten", n)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// Live runs one model run against the profile's endpoint (or BaseURL):
// [CheckLive], then the run writing its ledger (and, scored, the artefact
// bound to it), then the same checks as a preflight cell: the ledger read
// back complete, the bundle audit and a zero-call replay with every
// request digest rebuilt. An excluded run is a Result, not an error.
func Live(cfg LiveConfig) (*Result, error) {
	rates, cap, policy, base, err := CheckLive(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Domain == nil || cfg.Now == nil {
		return nil, errors.New("preflight: a live run needs a domain and a clock")
	}
	p := cfg.Profile
	ledgerName, artefactName := OutputNames(cfg.OperationInstanceID, FaultNone)
	u, _ := lane.ParseBaseURL(base)
	own, err := lane.SettingsDigest(p.Lane, p.Run, lane.LedgerURL(u), lane.SDKVersion())
	if err != nil {
		return nil, err
	}
	client := &http.Client{Transport: &http.Transport{
		Proxy:             nil,
		TLSClientConfig:   &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12},
		DisableKeepAlives: true,
	}}
	defer client.Transport.(*http.Transport).CloseIdleConnections()
	spec := &modelRun{
		Lane: p.Lane, Profile: p.Run, Client: client, BaseURL: base, Credential: cfg.Credential,
		Domain: cfg.Domain, EngineVersion: cfg.EngineVersion, MaxCalls: cfg.MaxCalls,
		Rates: rates, Cap: cap, Pricing: policy, TokenCap: provider.TokenHardCap,
		Now: cfg.Now, ExecutionRunID: cfg.ExecutionRunID, OperationInstanceID: cfg.OperationInstanceID,
		LedgerPath:      filepath.Join(cfg.OutputDir, ledgerName),
		ArtefactPath:    filepath.Join(cfg.OutputDir, artefactName),
		ArtefactOptions: cfg.ArtefactOptions, Agents: cfg.Agents,
		Context: cfg.Context,
		RequestDigests: Rebuilder(func(b *artefact.Binding) bool {
			return b.SettingsDigest == own && b.Provider == p.Run.Provider && b.API == p.Lane.API()
		}),
	}
	res := &Result{Cell: FaultNone, Lane: p.Lane.ID(), ScenarioID: cfg.Domain.Plan().Meta.ScenarioID, Live: true,
		WorstCaseUSD: provider.WorstCaseUSD(cfg.MaxCalls, rates).String(), TokenWorstCase: provider.TokenWorstCase(cfg.MaxCalls)}
	artefactBytes, err := spec.execute(res)
	if err != nil {
		return res, err
	}
	return res, spec.check(res, artefactBytes, nil, nil)
}
