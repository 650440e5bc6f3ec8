package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentsnap/agentsnap/report"
	"github.com/agentsnap/agentsnap/session"
)

// FuzzWrite renders a failing scenario of the fuzzer's golden and replay
// logs (any log session.Read accepts; nil when it refuses) and
// transcripts, as check --report renders a fixture's files beside a
// replay. Nothing may panic; Write fails only when its writer does; the
// page is valid UTF-8 for valid inputs, html/template rejected none of
// its values (no ZgotmplZ), and it marks one first divergence when it
// links one, else none.
// The seeds are the committed fixtures' root logs against each other. To
// fuzz:
//
//	go test -run '^$' -fuzz '^FuzzWrite$' -fuzztime 60s ./report
func FuzzWrite(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", "*", session.RootFile))
	var logs [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		logs = append(logs, b)
	}
	for i := range logs {
		f.Add(logs[i], logs[(i+1)%len(logs)], "== root\n[turn 1]\n", "== root\n[turn 1]\n<b>&\n")
	}
	f.Add(logs[0], []byte(nil), "", "")
	f.Fuzz(func(t *testing.T, golden, replay []byte, goldenText, replayText string) {
		sc := report.Scenario{Name: "c/<s>", Dir: "fixtures/c/s", Status: report.StatusFail,
			GoldenTranscript: goldenText, ReplayTranscript: replayText, Problems: []string{replayText}, FixCommand: "agentsnap record"}
		if l, err := session.Read(bytes.NewReader(golden), "golden.jsonl"); err == nil {
			sc.Recorded = []*session.Log{l}
		}
		if l, err := session.Read(bytes.NewReader(replay), "replay.jsonl"); err == nil {
			sc.Replayed = []*session.Log{l}
		}
		var b bytes.Buffer
		if err := report.Write(&b, "agentsnap check", []report.Scenario{sc}); err != nil {
			t.Fatalf("Write to a buffer: %v", err)
		}
		page := b.String()
		switch {
		case utf8.Valid(golden) && utf8.Valid(replay) && utf8.ValidString(goldenText+replayText) && !utf8.ValidString(page):
			t.Fatalf("the page of valid UTF-8 inputs is not valid UTF-8")
		case strings.Contains(page, "ZgotmplZ"):
			t.Fatalf("html/template rejected a value of the page")
		case strings.Count(page, `id="s1-first-divergence"`) != min(1, strings.Count(page, `href="#s1-first-divergence"`)):
			t.Fatalf("the page marks %d first divergences and links %d", strings.Count(page, `id="s1-first-divergence"`), strings.Count(page, `href="#s1-first-divergence"`))
		}
	})
}
