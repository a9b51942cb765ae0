//go:build unix

package main

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/obaudit/obaudit/campaign/campaigntest"
	"github.com/obaudit/obaudit/internal/cputime"
)

var benchAgents = []string{"reference", "complete_early", "always_act", "always_wait", "always_escalate",
	"ignore_new_events", "trust_actor_claim", "stale_after_wake", "duplicate_after_wake"}

// planBench plans a fresh campaign (untimed) and returns dir and key.
func planBench(b *testing.B, file string) (string, string) {
	b.StopTimer()
	defer b.StartTimer()
	return planCampaign(b, campaigntest.TempDir(b), file)
}

// benchCampaignRun times `obaudit campaign run` of file, planned afresh
// (untimed) for every iteration, at each parallelism; the campaign is of
// episodes episodes. The campaign benchmarks report CPU per episode
// (cputime.Process) beside episodes/s, since wall time on a shared machine
// measures the load as much as the work (and the process's CPU is what
// `perf stat -e task-clock obaudit campaign …` reports).
func benchCampaignRun(b *testing.B, file string, episodes int, parallel ...int) {
	for _, par := range parallel {
		b.Run(fmt.Sprintf("parallel=%d", par), func(b *testing.B) {
			var total, cpu time.Duration
			for range b.N {
				dir, key := planBench(b, file)
				t0, c0 := time.Now(), cputime.Process()
				mustRun(b, "campaign", "run", dir, "--key", key, "--parallel", strconv.Itoa(par))
				total, cpu = total+time.Since(t0), cpu+cputime.Process()-c0
			}
			b.ReportMetric(float64(episodes*b.N)/total.Seconds(), "episodes/s")
			b.ReportMetric(cpu.Seconds()*1000/float64(episodes*b.N), "cpu-ms/episode")
		})
	}
}

// BenchmarkCampaignRun is `obaudit campaign run` over the deterministic
// campaign of the 9 agents × V1–V3 × 40 trials (1,080 episodes), in
// process: every episode with its determinism self-check, its artefact
// encoded, validated and written, its run commitment signed and written,
// every file made durable (grouped syncfs) before its outcome is appended
// to the tessera log, the final checkpoint and report.json.
func BenchmarkCampaignRun(b *testing.B) {
	quietTessera()
	file := campaignFile(b, b.TempDir(), benchAgents, []string{"V1", "V2", "V3"}, 40, "obaudit.example/campaign/bench")
	benchCampaignRun(b, file, 1080, 1, 2)
}

// BenchmarkCampaignVerify is `obaudit campaign verify` of that campaign:
// the log read and its root recomputed, the consistency proof, and every
// episode's artefact validated and replayed, its commitment verified, its
// vector compared, and the report re-derived.
func BenchmarkCampaignVerify(b *testing.B) {
	quietTessera()
	file := campaignFile(b, b.TempDir(), benchAgents, []string{"V1", "V2", "V3"}, 40, "obaudit.example/campaign/bench")
	dir, key := planBench(b, file)
	b.StopTimer()
	mustRun(b, "campaign", "run", dir, "--key", key, "--parallel", "2")
	b.StartTimer()
	for _, par := range []int{1, 2} {
		b.Run(fmt.Sprintf("parallel=%d", par), func(b *testing.B) {
			t0, c0 := time.Now(), cputime.Process()
			for range b.N {
				mustRun(b, "campaign", "verify", dir, "--parallel", strconv.Itoa(par))
			}
			b.ReportMetric(float64(1080*b.N)/time.Since(t0).Seconds(), "episodes/s")
			b.ReportMetric((cputime.Process()-c0).Seconds()*1000/float64(1080*b.N), "cpu-ms/episode")
		})
	}
}

// BenchmarkCampaignModelLatency runs a model-backed campaign (one profile
// on the loopback scripted provider, 50 ms injected per call, 46 calls per
// episode, V1 × 16 trials) at --parallel 1 and 8: latency-bound work must
// scale with the parallelism.
func BenchmarkCampaignModelLatency(b *testing.B) {
	quietTessera()
	tmp := campaigntest.TempDir(b)
	file := writeCampaignFile(b, tmp, testCampaign{origin: "obaudit.example/campaign/latency", seed: "s",
		agents: []string{}, variants: []string{"V1"}, trials: 16, luna: true, lunaLatencyMS: 50})
	benchCampaignRun(b, file, 16, 1, 8)
}
