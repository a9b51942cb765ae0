// Command netlogcheck reads a Chromium NetLog (chromium --log-net-log=FILE)
// and says which URL requests a page made. CI uses it to prove that an
// episode report makes no network request when a browser renders it.
//
// A request is the page's when its URL_REQUEST_START_JOB names an initiator
// origin (a file:// page's origin is "null") or a network isolation key of
// the page's file:// site. Requests the browser makes for itself (initiator
// "not an origin": time sync, account checks) are listed apart and are not
// the page's.
//
// Usage:
//
//	go run ./report/internal/netlogcheck [-expect N] NETLOG.json
//
// Exit 0 when the page made exactly N requests (default 0), 1 when it made
// another number, 2 when the file is not a NetLog.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

type netlog struct {
	Constants struct {
		LogEventTypes map[string]int `json:"logEventTypes"`
		LogEventPhase map[string]int `json:"logEventPhase"`
	} `json:"constants"`
	Events []struct {
		Type   int            `json:"type"`
		Phase  int            `json:"phase"`
		Params map[string]any `json:"params"`
	} `json:"events"`
}

// Request is one URL request the log records.
type Request struct {
	URL, Initiator, IsolationKey string
}

// classify splits the log's started URL requests into the page's and the
// browser's own.
func classify(r io.Reader) (page, browser []Request, err error) {
	var nl netlog
	if err := json.NewDecoder(r).Decode(&nl); err != nil {
		return nil, nil, err
	}
	start, ok := nl.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		return nil, nil, fmt.Errorf("no URL_REQUEST_START_JOB event type in the log's constants")
	}
	begin, ok := nl.Constants.LogEventPhase["PHASE_BEGIN"]
	if !ok {
		return nil, nil, fmt.Errorf("no PHASE_BEGIN in the log's constants")
	}
	for _, e := range nl.Events {
		if e.Type != start || e.Phase != begin {
			continue
		}
		str := func(k string) string { s, _ := e.Params[k].(string); return s }
		req := Request{URL: str("url"), Initiator: str("initiator"), IsolationKey: str("network_isolation_key")}
		if req.Initiator != "not an origin" || strings.Contains(req.IsolationKey, "file://") {
			page = append(page, req)
		} else {
			browser = append(browser, req)
		}
	}
	return page, browser, nil
}

func main() {
	expect := flag.Int("expect", 0, "the number of requests the page must have made")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: netlogcheck [-expect N] NETLOG.json")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "netlogcheck:", err)
		os.Exit(2)
	}
	page, browser, err := classify(f)
	f.Close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "netlogcheck: %s: not a NetLog: %v\n", flag.Arg(0), err)
		os.Exit(2)
	}
	fmt.Printf("%s: the page made %d request(s); the browser made %d of its own (not the page's)\n", flag.Arg(0), len(page), len(browser))
	for _, r := range page {
		fmt.Printf("  page request: %s (initiator %s)\n", r.URL, r.Initiator)
	}
	if len(page) != *expect {
		fmt.Fprintf(os.Stderr, "netlogcheck: want %d page request(s), found %d\n", *expect, len(page))
		os.Exit(1)
	}
}
