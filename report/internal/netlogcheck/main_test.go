package main

import (
	"strings"
	"testing"
)

// A NetLog trimmed to what classify reads, with the shapes Chromium 148
// writes: one request of the browser's own and two a file:// page made.
const sample = `{"constants":{"logEventTypes":{"REQUEST_ALIVE":2,"URL_REQUEST_START_JOB":7},"logEventPhase":{"PHASE_BEGIN":1,"PHASE_END":2,"PHASE_NONE":0}},
"events":[
{"type":7,"phase":1,"params":{"initiator":"not an origin","network_isolation_key":"https://google.com https://google.com","url":"https://accounts.google.com/ListAccounts"}},
{"type":7,"phase":2,"params":{"net_error":-105}},
{"type":2,"phase":1,"params":{"url":"http://leak.example.com/pixel.png"}},
{"type":7,"phase":1,"params":{"initiator":"null","network_isolation_key":"file:// [internally: file://] file:// [internally: file://]","url":"http://leak.example.com/pixel.png"}},
{"type":7,"phase":1,"params":{"initiator":"not an origin","network_isolation_key":"file:// [internally: file://] file:// [internally: file://]","url":"https://api.example.org/beacon"}}
]}`

func TestClassify(t *testing.T) {
	page, browser, err := classify(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 2 || page[0].URL != "http://leak.example.com/pixel.png" || page[1].URL != "https://api.example.org/beacon" {
		t.Errorf("page requests = %+v", page)
	}
	if len(browser) != 1 || browser[0].URL != "https://accounts.google.com/ListAccounts" {
		t.Errorf("browser requests = %+v", browser)
	}
	if _, _, err := classify(strings.NewReader(`{"constants":{},"events":[]}`)); err == nil {
		t.Error("a log without constants was accepted")
	}
	if _, _, err := classify(strings.NewReader(`{`)); err == nil {
		t.Error("truncated JSON was accepted")
	}
}
