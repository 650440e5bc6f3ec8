// Package govcr sets go-vcr v4 beside agentsnap's wire layer in the
// in-process replay benchmark (internal/wirebench): the same recorded
// conversation, replayed from a go-vcr cassette in replay-only mode with
// no simulated latency. It is a module of its own so that go-vcr stays out
// of agentsnap's go.mod.
//
//	cd internal/wirebench/govcr && go test -run '^$' -bench AgentReplay -benchtime 20x .
package govcr

import (
	"fmt"
	"path/filepath"

	"github.com/agentsnap/agentsnap/internal/wirebench"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// Side records rec's conversation into a go-vcr cassette — the agent run
// through go-vcr's recorder in record-only mode, the recorded answers
// handed back in call order — and returns the side that replays it. Each
// round's Prepare reads the cassette from disk (what a test pays once, not
// counted); its Run replays the agent through the recorder.
func Side(tb wirebench.TB, rec *wirebench.Recording) wirebench.Side {
	tb.Helper()
	cassette := filepath.Join(tb.TempDir(), "agent")
	r, err := recorder.New(cassette, recorder.WithMode(recorder.ModeRecordOnly), recorder.WithRealTransport(rec.InOrder()),
		recorder.WithSkipRequestLatency(true))
	if err != nil {
		tb.Fatal(err)
	}
	wirebench.RunAgent(tb, r.GetDefaultClient(), rec.Prompts)
	if err := r.Stop(); err != nil {
		tb.Fatal(err)
	}
	var replay *recorder.Recorder
	return wirebench.Side{
		Name: "go-vcr",
		Prepare: func(tb wirebench.TB) {
			if replay, err = recorder.New(cassette, recorder.WithMode(recorder.ModeReplayOnly), recorder.WithSkipRequestLatency(true)); err != nil {
				tb.Fatal(fmt.Errorf("go-vcr: reading the cassette %s.yaml: %w", cassette, err))
			}
		},
		Run: func(tb wirebench.TB) func(wirebench.TB) {
			wirebench.RunAgent(tb, replay.GetDefaultClient(), rec.Prompts)
			return func(tb wirebench.TB) {
				if err := replay.Stop(); err != nil {
					tb.Fatal(err)
				}
			}
		},
	}
}
