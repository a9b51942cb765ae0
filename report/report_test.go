package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/internal/artefacttest"
	"github.com/obaudit/obaudit/internal/upstreamtest"
)

const v1Fixture = "artifact8-deterministic-reference-v1.json"

func buildV1(t *testing.T) *Report {
	t.Helper()
	r, err := Build(artefacttest.Read(t, upstreamtest.Read(t, v1Fixture)), Options{})
	if err != nil {
		t.Fatalf("Build(V1) = %v", err)
	}
	return r
}

func TestTimelineV1(t *testing.T) {
	tl := buildV1(t).Timeline()
	if got := strings.Join(tl.Actors, ","); got != "customer_1,supplier_1,maintenance_system,approver_1,payment_system,scheduler" {
		t.Errorf("actors = %s", got)
	}
	if len(tl.Events) != 19 || len(tl.Invocations) != 14 || len(tl.Proposals) != 11 || len(tl.Waits) != 12 {
		t.Errorf("events %d invocations %d proposals %d waits %d, want 19 14 11 12", len(tl.Events), len(tl.Invocations), len(tl.Proposals), len(tl.Waits))
	}
	origins := map[string]string{}
	for _, e := range tl.Events {
		origins[e.ID] = e.Origin
	}
	if origins["v1_e01"] != OriginExogenous || origins["v1_e02"] != OriginReactive || origins["timer_provisional_close:work_cycle_3"] != OriginTimer {
		t.Errorf("origins = %v", origins)
	}
	for i, w := range tl.Waits {
		if !w.Woken || w.Unresolve || w.To.Before(w.From) {
			t.Errorf("wait %d = %+v, want woken after its declaration", i, w)
		}
	}
	for _, p := range tl.Proposals {
		if !p.Accepted {
			t.Errorf("proposal %s at row %d not accepted", p.ActionType, p.Row)
		}
	}
	status := map[string]string{}
	for _, o := range tl.Obligations {
		status[o.ID] = o.Status
		if o.Closed == nil || o.Due.IsZero() {
			t.Errorf("obligation %s = %+v, want closed with a due time", o.ID, o)
		}
	}
	if len(status) != 7 || status["approval_reminder:checkpoint_1"] != "cancelled" || status["completion_notice:work_cycle_3"] != "discharged" {
		t.Errorf("obligations = %v", status)
	}
	if len(tl.Checkpoints) != 1 || tl.Checkpoints[0].Resolution != "RESOLVED_APPROVED" || tl.Checkpoints[0].DeadlineText != "2031-03-08T10:30:00Z" {
		t.Errorf("checkpoints = %+v", tl.Checkpoints)
	}
	if len(tl.Provisional) != 2 || tl.Provisional[0].Ending != "reopened" || tl.Provisional[0].WarrantyCycle != "work_cycle_3" || tl.Provisional[1].Ending != "finalized" {
		t.Errorf("provisional = %+v", tl.Provisional)
	}
	if !tl.Terminal.Business || tl.Terminal.Status != "completed_successfully" || tl.Terminal.AtText != "2031-03-12T15:30:00Z" {
		t.Errorf("terminal = %+v", tl.Terminal)
	}
	if len(tl.Messages) != 3 || !tl.Messages[0].Delivered || tl.Messages[0].Fixture != "msg_completion_notice" {
		t.Errorf("messages = %+v", tl.Messages)
	}
	if len(tl.Findings) != 0 {
		t.Errorf("findings = %v", tl.Findings)
	}
	if !tl.End.After(tl.Start) || tl.End.Format("2006-01-02T15:04:05Z") != "2031-03-13T15:30:00Z" {
		t.Errorf("axis %s..%s", tl.Start, tl.End)
	}
}

func TestHTMLSelfContained(t *testing.T) {
	page := buildV1(t).HTML()
	again := buildV1(t).HTML()
	if !bytes.Equal(page, again) {
		t.Fatal("two renderings of the same artefact differ")
	}
	s := string(page)
	// Nothing that could load: no links, sources, imports or URLs other than
	// the SVG namespace name (an identifier, never fetched), and no script
	// but the page's own, which makes no request.
	stripped := strings.ReplaceAll(s, `xmlns="http://www.w3.org/2000/svg"`, "")
	for _, bad := range []string{"<link", "<img", "<iframe", "<object", "<embed", "src=", "href=", "url(", "@import", "http://", "https://", "//",
		"fetch(", "XMLHttpRequest", "WebSocket", "sendBeacon", "import(", "EventSource", "location.href", "location.assign", "location.replace", "location=", "window.open", "innerHTML", "eval("} {
		if strings.Contains(stripped, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	// The CSP admits exactly the page's one style and one script element,
	// each by its hash.
	policyOf := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`).FindStringSubmatch(s)
	if policyOf == nil {
		t.Fatal("no Content-Security-Policy meta tag")
	}
	policy := html.UnescapeString(policyOf[1])
	for _, el := range []string{"style", "script"} {
		found := regexp.MustCompile(`(?s)<`+el+`>(.*?)</`+el+`>`).FindAllStringSubmatch(s, -1)
		if len(found) != 1 || strings.Count(s, "<"+el) != 1 {
			t.Fatalf("%d %s elements, want 1", len(found), el)
		}
		sum := sha256.Sum256([]byte(found[0][1]))
		hash := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
		if !strings.Contains(policy, el+"-src "+hash+";") {
			t.Errorf("policy %q does not admit the %s by its hash %s", policy, el, hash)
		}
	}
	for _, want := range []string{"default-src 'none'", "connect-src 'none'", "img-src 'none'", "form-action 'none'"} {
		if !strings.Contains(policy, want) {
			t.Errorf("policy %q lacks %q", policy, want)
		}
	}
	if strings.Contains(policy, "unsafe") {
		t.Errorf("policy %q admits unsafe sources", policy)
	}
	if strings.Contains(s, " style=") || regexp.MustCompile(` on[a-z]+=`).MatchString(s) {
		t.Error("an inline style or event-handler attribute would need 'unsafe-inline'")
	}
	for _, want := range []string{"RELIABLE", "terminal: completed_successfully", "checkpoint_1 repair_quote_approval", "REOPENED → work_cycle_3",
		"window work_cycle_3", "45f2f3bec377230a0fc464c5ea1b64798a053beeb588c3ec4bdb477eaf7cfab5", "retrieval_discipline", "#14"} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestText(t *testing.T) {
	txt := string(buildV1(t).Text())
	if !bytes.Equal([]byte(txt), buildV1(t).Text()) {
		t.Fatal("two text renderings differ")
	}
	for _, want := range []string{
		"  verdict         RELIABLE\n",
		"  2031-03-05T10:30:00Z  checkpoint checkpoint_1 repair_quote_approval opened for approver_1, deadline 2031-03-08T10:30:00Z\n",
		"  2031-03-09T13:30:00Z  reopen     work_cycle_2 REOPENED as work_cycle_3",
		"  2031-03-12T15:30:00Z  terminal   completed_successfully (replay-final)\n",
		"  2031-03-13T15:30:00Z  event      v1_e18 supplier_assertion_received by supplier_1: after the terminal\n",
		"  11 retrieval_discipline   OK     business_proposals=11 discipline_violations=0 distinct_tools_read=8 reads_served=157\n",
		"trajectory_digest_sha256              16dd2845143fea411282753df6832cc51eccdad76f4d37feb77bc98ca1469439\n",
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q", want)
		}
	}
	for i, l := range strings.Split(txt, "\n") {
		if strings.TrimRight(l, " ") != l {
			t.Errorf("line %d has trailing spaces: %q", i+1, l)
		}
	}
}

// TestFailingEpisode renders a V1 artefact with one refused proposal, a
// breached obligation and findings spliced in, and checks each reaches the
// page and the text.
func TestFailingEpisode(t *testing.T) {
	raw := artefacttest.Mutate(t, upstreamTest(t), func(m map[string]any) {
		rows := m["trajectory"].([]any)
		var at int
		for i, r := range rows {
			if r.(map[string]any)["record_type"] == "agent_invoked" && r.(map[string]any)["invocation_index"] == int64(6) {
				at = i + 2
				break
			}
		}
		when := rows[at-1].(map[string]any)["at"]
		splice := []any{
			map[string]any{"at": when, "record_type": "action_proposed", "proposal_id": "proposal_x", "action_type": "request_payment", "payload": map[string]any{}, "evidence_refs": []any{"assertion_1"}},
			map[string]any{"at": when, "record_type": "action_rejected", "proposal_id": "proposal_x", "action_type": "request_payment", "code": "ACTED_ON_CLAIM_WITHOUT_RECORD", "detail": "a claim"},
			map[string]any{"at": when, "record_type": "obligation_breached", "obligation_id": "approval_reminder:checkpoint_1", "kind": "approval_reminder"},
		}
		rows = append(rows[:at], append(splice, rows[at:]...)...)
		for i, r := range rows {
			r.(map[string]any)["index"] = int64(i)
		}
		m["trajectory"] = rows
		ev := m["evaluation"].(map[string]any)
		for _, d := range ev["dimensions"].([]any) {
			dm := d.(map[string]any)
			if dm["name"] == "authority_boundaries" {
				dm["ok"] = false
				dm["findings"] = []any{map[string]any{"code": "CLAIM_TREATED_AS_AUTHORITATIVE", "detail": "request_payment: a claim", "at": when}}
			}
		}
		ev["failed_dimensions"] = []any{"authority_boundaries"}
		ev["finding_codes"] = []any{"CLAIM_TREATED_AS_AUTHORITATIVE"}
		ev["reliable"] = false
	})
	r, err := Build(artefacttest.Unchecked(t, raw), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tl := r.Timeline()
	var refused int
	for _, p := range tl.Proposals {
		if !p.Accepted && p.Code == "ACTED_ON_CLAIM_WITHOUT_RECORD" && p.Invocation == 6 {
			refused++
		}
	}
	if refused != 1 {
		t.Errorf("%d refused request_payment proposals in invocation 6, want 1", refused)
	}
	for _, o := range tl.Obligations {
		if o.ID == "approval_reminder:checkpoint_1" && o.Status != "breached" {
			t.Errorf("approval reminder status %s, want breached", o.Status)
		}
	}
	if len(tl.Findings) != 1 || tl.Findings[0].Dimension != "authority_boundaries" {
		t.Errorf("findings = %+v", tl.Findings)
	}
	page := string(r.HTML())
	for _, want := range []string{"NOT RELIABLE: failed authority_boundaries", "request_payment ✗ ACTED_ON_CLAIM_WITHOUT_RECORD", "BREACHED", "CLAIM_TREATED_AS_AUTHORITATIVE", `<tr class="fail">`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	txt := string(r.Text())
	for _, want := range []string{"request_payment → REFUSED ACTED_ON_CLAIM_WITHOUT_RECORD citing [assertion_1]", "approval_reminder:checkpoint_1 BREACHED", "! CLAIM_TREATED_AS_AUTHORITATIVE: request_payment: a claim (2031-03-06T09:30:00Z)"} {
		if !strings.Contains(txt, want) {
			t.Errorf("text lacks %q", want)
		}
	}
}

func upstreamTest(t *testing.T) []byte { return upstreamtest.Read(t, v1Fixture) }
