package main

import (
	"fmt"
	"os"
	"time"

	"github.com/obaudit/obaudit/preflight"
)

// latencyPreflight is the test binary's preflight.Run with a per-answer
// latency, reporting how many requests its scripted provider received.
func latencyPreflight(d, report string) func(preflight.Config) (*preflight.Result, error) {
	lat, err := time.ParseDuration(d)
	if err != nil {
		panic(err)
	}
	return func(cfg preflight.Config) (*preflight.Result, error) {
		cfg.Latency = lat
		r, err := preflight.Run(cfg)
		if report != "" {
			line := fmt.Sprintf("error %v", err)
			if err == nil {
				line = fmt.Sprintf("requests %d", r.ProviderRequests)
			}
			os.WriteFile(report, []byte(line), 0o644)
		}
		return r, err
	}
}
