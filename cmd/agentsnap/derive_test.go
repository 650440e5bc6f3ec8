package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/internal/unprivileged"
)

// deriveFork is a fork child whose seed (seqs 0-5) holds the parent's
// answer "OK"; its own turn answers "MARMALADE" after a failed attempt.
var deriveFork = strings.Join([]string{
	`{"type":"session","version":0,"id":"child","createdAt":1,"parentSession":"parent","seedLength":6,"delegationDepth":1,"parentCallId":"call_1","mode":"fork"}`,
	`{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}`,
	`{"type":"assistant/chunk","seq":1,"time":1,"data":{"turn":1,"step":1,"attempt":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}}`,
	`{"type":"assistant/chunk","seq":2,"time":1,"data":{"turn":1,"step":1,"attempt":1,"chunk":{"type":"text-delta","index":0,"text":"OK"}}}`,
	`{"type":"assistant/chunk","seq":3,"time":1,"data":{"turn":1,"step":1,"attempt":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}}`,
	`{"type":"x/unknown","seq":4,"time":1,"data":{}}`,
	`{"type":"turn/end","seq":5,"time":1,"data":{"turn":1,"reason":{"kind":"completed"}}}`,
	`{"type":"turn/start","seq":6,"time":1,"data":{"turn":2}}`,
	`{"type":"assistant/chunk","seq":7,"time":1,"data":{"turn":2,"step":1,"attempt":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"slow down","code":"RATE_LIMIT"}}}}}`,
	`{"type":"assistant/chunk","seq":8,"time":1,"data":{"turn":2,"step":1,"attempt":2,"chunk":{"type":"block-start","index":0,"blockType":"text"}}}`,
	`{"type":"assistant/chunk","seq":9,"time":1,"data":{"turn":2,"step":1,"attempt":2,"chunk":{"type":"text-delta","index":0,"text":"MARMALADE"}}}`,
	`{"type":"assistant/chunk","seq":10,"time":1,"data":{"turn":2,"step":1,"attempt":2,"chunk":{"type":"finish","reason":{"kind":"stop"}}}}`,
	`{"type":"turn/end","seq":11,"time":1,"data":{"turn":2,"reason":{"kind":"completed"}}}`,
}, "\n") + "\n"

// deriveCut ends inside a model call (a crash while recording).
var deriveCut = strings.Join([]string{
	`{"type":"session","version":0,"id":"cut","createdAt":1}`,
	`{"type":"assistant/chunk","seq":0,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"text"}}}`,
	`{"type":"assistant/chunk","seq":1,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"ok"}}}`,
	`{"type":"assistant/chunk","seq":2,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}}`,
	`{"type":"assistant/chunk","seq":3,"time":1,"data":{"turn":2,"step":3,"chunk":{"type":"block-start","index":0,"blockType":"text"}}}`,
}, "\n") + "\n"

// deriveCLI runs "agentsnap derive ARGS" in dir.
func deriveCLI(dir string, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }, dir: dir}
	code = run(context.Background(), e, append([]string{"derive"}, args...))
	return code, out.String(), errb.String()
}

func deriveDir(files map[string]string) string {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	for name, content := range files {
		Expect(os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)).To(Succeed())
	}
	return dir
}

func derivedTexts(stdout string) []string {
	GinkgoHelper()
	var entries []fakellm.Entry
	Expect(json.Unmarshal([]byte(stdout), &entries)).To(Succeed(), "stdout is the sidecar's entry shape")
	out := make([]string, len(entries))
	for i, e := range entries {
		for _, c := range e.Chunks {
			out[i] += c.Text
			if c.IsFinish() {
				out[i] += "|" + c.Reason.Kind
			}
		}
	}
	return out
}

var _ = Describe("agentsnap derive", func() {
	DescribeTable("prints the session's own script as JSON",
		func(args []string, want []string) {
			dir := deriveDir(map[string]string{"session.1.jsonl": deriveFork})
			code, stdout, stderr := deriveCLI(dir, args...)
			Expect(stderr).To(BeEmpty())
			Expect(code).To(Equal(exitOK))
			Expect(derivedTexts(stdout)).To(Equal(want))
			Expect(stdout).To(HavePrefix("[\n  {\n    \"kind\": \"chunks\",\n    \"turn\": 2,\n    \"step\": 1,\n    \"attempt\": "))
		},
		Entry("every attempt by default", []string{"session.1.jsonl"}, []string{"|error", "MARMALADE|stop"}),
		Entry("every attempt, named", []string{"session.1.jsonl", "--attempts", "every"}, []string{"|error", "MARMALADE|stop"}),
		Entry("acted-on attempts, flag first", []string{"--attempts=acted-on", "session.1.jsonl"}, []string{"MARMALADE|stop"}),
	)

	// Inspect counts the fork child's own turn 2 as two model calls, the
	// failed one and its retry; the drift, the report and record
	// --only-changed number them 1 and 2 too.
	DescribeTable("numbers each entry with its model call in the log, the failed attempts counted, as inspect and the drift do",
		func(args []string, want []int) {
			dir := deriveDir(map[string]string{"session.1.jsonl": deriveFork})
			code, stdout, stderr := deriveCLI(dir, args...)
			Expect(stderr).To(BeEmpty())
			Expect(code).To(Equal(exitOK))
			var entries []fakellm.Entry
			Expect(json.Unmarshal([]byte(stdout), &entries)).To(Succeed())
			var got []int
			for _, e := range entries {
				got = append(got, e.Call)
			}
			Expect(got).To(Equal(want))
			Expect(cli(dir, nil, "inspect", "session.1.jsonl").stdout).To(MatchRegexp(`turn 2 +0 steps +2 model calls`))
		},
		Entry("every attempt: calls 1 and 2", []string{"session.1.jsonl"}, []int{1, 2}),
		Entry("acted-on: call 2, the retry; the failed call 1 has no entry", []string{"session.1.jsonl", "--attempts", "acted-on"}, []int{2}),
	)

	It("fails on a log it cannot derive, naming the file, session, turn and step", func() {
		dir := deriveDir(map[string]string{"session.jsonl": deriveCut})
		code, stdout, stderr := deriveCLI(dir, "session.jsonl")
		Expect(code).To(Equal(exitBadData))
		Expect(stdout).To(BeEmpty())
		Expect(stderr).To(Equal("agentsnap derive: fakellm: derive " + filepath.Join(dir, "session.jsonl") +
			": incomplete model call: session cut, turn 2 step 3: 1 chunk and no finish (a crash while recording?) — re-record the scenario, or derive with DropIncomplete (agentsnap derive --drop-incomplete) to drop it\n"))
	})

	It("drops incomplete calls with --drop-incomplete and says so", func() {
		dir := deriveDir(map[string]string{"session.jsonl": deriveCut})
		code, stdout, stderr := deriveCLI(dir, "session.jsonl", "--drop-incomplete")
		Expect(code).To(Equal(exitOK))
		Expect(derivedTexts(stdout)).To(Equal([]string{"ok|stop"}))
		Expect(stderr).To(Equal("agentsnap derive: session.jsonl: dropped the incomplete model call at turn 2 step 3 (1 chunk, no finish)\n"))
	})

	It("fails on a broken line with the file and line first", func() {
		dir := deriveDir(map[string]string{"bad.jsonl": deriveCut + "{\"type\":\n"})
		code, _, stderr := deriveCLI(dir, "bad.jsonl")
		Expect(code).To(Equal(exitBadData))
		Expect(stderr).To(HavePrefix("agentsnap derive: " + filepath.Join(dir, "bad.jsonl") + ":6: broken JSON"))
	})

	It("fails on a missing file, naming it as given", func() {
		code, stdout, stderr := deriveCLI(GinkgoT().TempDir(), "nope.jsonl")
		Expect(code).To(Equal(exitBadData))
		Expect(stdout).To(BeEmpty())
		Expect(stderr).To(Equal("agentsnap derive: nope.jsonl: no such file\n"))
	})

	// CI runs as root, which reads any file: unprivileged.Do drops that.
	It("says to fix the permissions of a file this user may not read", func() {
		dir := deriveDir(map[string]string{"fork.jsonl": deriveFork})
		log := filepath.Join(dir, "fork.jsonl")
		Expect(os.Chmod(log, 0)).To(Succeed())
		DeferCleanup(os.Chmod, log, fs.FileMode(0o644))
		var code int
		var stdout, stderr string
		Expect(unprivileged.Do(func() error { code, stdout, stderr = deriveCLI(dir, "fork.jsonl"); return nil })).To(Succeed())
		Expect(code).To(Equal(exitBadData))
		Expect(stdout).To(BeEmpty())
		Expect(stderr).To(HaveSuffix(log + ": permission denied; make it readable by this user (fix its permissions)\n"))
	})

	DescribeTable("refuses a folder, naming a log file to give instead",
		func(files []string, want string) {
			dir := GinkgoT().TempDir()
			Expect(os.Mkdir(filepath.Join(dir, "fx"), 0o755)).To(Succeed())
			for _, name := range files {
				Expect(os.WriteFile(filepath.Join(dir, "fx", name), []byte(deriveFork), 0o644)).To(Succeed())
			}
			code, stdout, stderr := deriveCLI(dir, "fx")
			Expect(code).To(Equal(exitBadData))
			Expect(stdout).To(BeEmpty())
			Expect(stderr).To(Equal("agentsnap derive: " + want + "\n"))
		},
		Entry("without logs", []string{"notes.txt"},
			"fx is a folder; derive takes one session log file, e.g. fx/session.jsonl"),
		Entry("with logs, all listed", []string{"session.jsonl", "session.1.jsonl"},
			"fx is a folder; derive takes one session log file, e.g. fx/session.jsonl (it holds session.jsonl, session.1.jsonl)"),
		Entry("with more than five logs, five listed", []string{"session.jsonl", "session.1.jsonl", "session.2.jsonl", "session.3.jsonl", "session.4.jsonl", "session.5.jsonl", "session.6.jsonl"},
			"fx is a folder; derive takes one session log file, e.g. fx/session.jsonl (it holds session.jsonl, session.1.jsonl, session.2.jsonl, session.3.jsonl, session.4.jsonl and 2 more)"),
		Entry("of other logs, the first one as the example", []string{"b.jsonl", "a.jsonl"},
			"fx is a folder; derive takes one session log file, e.g. fx/a.jsonl (it holds a.jsonl, b.jsonl)"),
	)

	DescribeTable("usage errors exit 2 with the usage line",
		func(args []string, reason string) {
			code, stdout, stderr := deriveCLI(GinkgoT().TempDir(), args...)
			Expect(code).To(Equal(exitUsage))
			Expect(stdout).To(BeEmpty())
			Expect(stderr).To(Equal("agentsnap derive: " + reason + "\nusage: agentsnap derive FILE [--attempts every|acted-on] [--drop-incomplete]\n" +
				`run "agentsnap help derive" for the details and flags` + "\n"))
		},
		Entry("no file", []string{}, "want one FILE, got 0 arguments"),
		Entry("two files", []string{"a.jsonl", "b.jsonl"}, "want one FILE, got 2 arguments"),
		Entry("an unknown attempt mode", []string{"a.jsonl", "--attempts", "last"}, `--attempts is "last"; want "every" or "acted-on"`),
		Entry("an unknown flag", []string{"a.jsonl", "--fast"}, "flag provided but not defined: -fast"),
		Entry("-h as the value of --attempts, not a call for help", []string{"a.jsonl", "--attempts", "-h"}, `--attempts is "-h"; want "every" or "acted-on"`),
	)

	It("describes itself in help", func() {
		var out bytes.Buffer
		code := run(context.Background(), &env{stdout: &out, stderr: &out}, []string{"help", "derive"})
		Expect(code).To(Equal(exitOK))
		Expect(out.String()).To(HavePrefix("usage: agentsnap derive FILE [--attempts every|acted-on] [--drop-incomplete]\n\nprint a session log's replay script as JSON\n"))
		Expect(out.String()).To(ContainSubstring("events[seedLength:]"))
		Expect(out.String()).To(ContainSubstring("\nflags:\n  --attempts every|acted-on  which attempts of each step to replay,"))
		Expect(out.String()).To(MatchRegexp(`acted-on only the last\s+one, which keeps its call's number \(default every\)\n  --drop-incomplete  +drop model calls without a finish chunk`))
	})
})
