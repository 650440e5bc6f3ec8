package main

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// replaceIn rewrites the first occurrence of old, which must be there, in
// a file of a fixture copy.
func replaceIn(path, old, new string) {
	GinkgoHelper()
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	Expect(string(b)).To(ContainSubstring(old), path)
	Expect(os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644)).To(Succeed())
}

// breakGolden makes fork/codeword's golden differ from its replay at
// golden line 5.
func breakGolden(root string) string {
	golden := filepath.Join(root, "fixtures/fork/codeword", fixture.GoldenFile)
	replaceIn(golden, "assistant: OK", "assistant: Okay")
	return golden
}

// breakLog makes spawn/one-child's recorded root answer (its
// assistant/message event) differ from what its replay writes.
func breakLog(root string) {
	path := filepath.Join(root, "fixtures/spawn/one-child", fixture.RootLog)
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.Contains(l, `"type":"assistant/message"`) {
			Expect(l).To(ContainSubstring(`"text":"A fresh child`))
			lines[i] = strings.Replace(l, `"text":"A fresh child`, `"text":"XA fresh child`, 1)
			break
		}
	}
	Expect(os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)).To(Succeed())
}

// checkJSON is --format json, decoded.
type checkJSON struct {
	Scenarios []struct {
		Name            string   `json:"name"`
		Dir             string   `json:"dir"`
		Status          string   `json:"status"`
		Sessions        int      `json:"sessions"`
		Calls           int      `json:"calls"`
		FirstDifference string   `json:"firstDifference"`
		Fix             string   `json:"fix"`
		Problems        []string `json:"problems"`
		Notes           []string `json:"notes"`
	} `json:"scenarios"`
	Passed int `json:"passed"`
	Failed int `json:"failed"`
}

// junitDoc is a one-scenario --format junit document.
type junitDoc struct {
	Suite struct {
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Case     struct {
			Failure *junitText `xml:"failure"`
			Error   *junitText `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

type junitText struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// decodeStrict decodes XML the way a strict CI parser reads it.
func decodeStrict(doc string, v any) error {
	dec := xml.NewDecoder(strings.NewReader(doc))
	dec.Strict = true
	return dec.Decode(v)
}

// objectKeys returns the member names of the JSON object at the start of
// dec, in order, skipping their values.
func objectKeys(dec *json.Decoder) []string {
	tok, err := dec.Token()
	Expect(err).NotTo(HaveOccurred())
	Expect(tok).To(Equal(json.Delim('{')))
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		Expect(err).NotTo(HaveOccurred())
		keys = append(keys, k.(string))
		var skip json.RawMessage
		Expect(dec.Decode(&skip)).To(Succeed())
	}
	_, err = dec.Token()
	Expect(err).NotTo(HaveOccurred())
	return keys
}

var _ = Describe("agentsnap check --format", func() {
	It("json: one object with each scenario's status, counts, first difference, fix and problems", func() {
		root := fixtureCopy("fork/codeword", "spawn/one-child", "spawn/two-sequential")
		golden := breakGolden(root)
		breakLog(root)
		r := cli(root, nil, "check", "fixtures", "--format", "json")
		Expect(r.code).To(Equal(exitFail), r.stderr)
		Expect(r.stderr).To(BeEmpty())

		var got checkJSON
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		dec.DisallowUnknownFields()
		Expect(dec.Decode(&got)).To(Succeed(), r.stdout)
		Expect(dec.More()).To(BeFalse(), "one object, nothing after it")
		Expect(got.Passed).To(Equal(1))
		Expect(got.Failed).To(Equal(2))
		Expect(got.Scenarios).To(HaveLen(3))

		golden0 := got.Scenarios[0]
		Expect(golden0.Name).To(Equal("fork/codeword"))
		Expect(golden0.Dir).To(Equal(filepath.Join(root, "fixtures/fork/codeword")))
		Expect(golden0.Status).To(Equal("fail"))
		Expect(golden0.Sessions).To(Equal(2))
		Expect(golden0.Calls).To(Equal(4))
		Expect(golden0.FirstDifference).To(Equal("the transcript differs from " + golden + " at golden line 5, replay line 5: -    assistant: Okay"))
		Expect(golden0.Fix).To(Equal("go tool agentsnap check --update " + filepath.Join(root, "fixtures/fork/codeword")))
		Expect(golden0.Problems).To(HaveLen(1))
		Expect(golden0.Problems[0]).To(ContainSubstring("-    assistant: Okay\n+    assistant: OK\n"))

		replay := got.Scenarios[1]
		Expect(replay.Name).To(Equal("spawn/one-child"))
		Expect(replay.Status).To(Equal("fail"))
		Expect(replay.Sessions).To(Equal(2))
		Expect(replay.Calls).To(Equal(3))
		Expect(replay.FirstDifference).To(Equal(`log difference: root (root session): seq 39 (assistant/message): data.message.content[0].text: golden "XA fresh child can answer this on its own.", replay "A fresh child can answer this on its own."`))
		Expect(replay.Fix).To(Equal("go tool agentsnap record " + filepath.Join(root, "fixtures/spawn/one-child")))
		Expect(replay.Problems).To(HaveLen(1))
		Expect(replay.Problems[0]).To(HavePrefix("spawn/one-child: the replay does not match the recording"))

		pass := got.Scenarios[2]
		Expect(pass.Name).To(Equal("spawn/two-sequential"))
		Expect(pass.Status).To(Equal("pass"))
		Expect(pass.Sessions).To(Equal(3))
		Expect(pass.Calls).To(Equal(5))
		Expect(pass.FirstDifference).To(BeEmpty())
		Expect(pass.Fix).To(BeEmpty())
		Expect(pass.Problems).To(BeEmpty())
		Expect(pass.Notes).To(BeEmpty())
		Expect(r.stdout).To(ContainSubstring(`"problems": [],`), "an empty list is [], not null")

		By("keeping the member order fixed")
		dec = json.NewDecoder(strings.NewReader(r.stdout))
		Expect(objectKeys(dec)).To(Equal([]string{"scenarios", "passed", "failed"}))
		dec = json.NewDecoder(strings.NewReader(r.stdout))
		_, _ = dec.Token() // {
		_, _ = dec.Token() // "scenarios"
		_, _ = dec.Token() // [
		Expect(objectKeys(dec)).To(Equal([]string{"name", "dir", "status", "sessions", "calls", "firstDifference", "fix", "problems", "notes"}))
	})

	It("json: a passing run exits 0 and a fixture that cannot load is an error", func() {
		root := fixtureCopy("spawn/one-child", "spawn/two-sequential")
		r := cli(root, nil, "check", "fixtures/spawn/one-child", "--format", "json")
		Expect(r.code).To(Equal(exitOK), r.stdout)
		var got checkJSON
		Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed())
		Expect(got.Passed).To(Equal(1))
		Expect(got.Failed).To(Equal(0))

		bad := filepath.Join(root, "fixtures/spawn/two-sequential", fixture.ChildLog(2))
		Expect(os.WriteFile(bad, []byte("garbage\n"), 0o644)).To(Succeed())
		r = cli(root, nil, "check", "fixtures/spawn/two-sequential", "--format", "json")
		Expect(r.code).To(Equal(exitFail))
		got = checkJSON{}
		Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed())
		Expect(got.Scenarios).To(HaveLen(1))
		Expect(got.Scenarios[0].Status).To(Equal("error"))
		Expect(got.Scenarios[0].FirstDifference).To(HavePrefix("fixture: bad fixture: " + bad + ":1: "))
		Expect(got.Failed).To(Equal(1))
	})

	It("json: request drift is the first difference, before the log differences it causes", func() {
		root := fixtureCopy("spawn/one-child")
		replaceIn(filepath.Join(root, "fixtures/spawn/one-child", scenario.File), "You are a careful assistant.", "You are a very careful assistant.")
		r := cli(root, nil, "check", "--format", "json")
		Expect(r.code).To(Equal(exitFail))
		var got checkJSON
		Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed())
		Expect(got.Scenarios[0].Problems[0]).To(ContainSubstring("log differences"), "the drift shows in the logs too")
		Expect(got.Scenarios[0].FirstDifference).To(HavePrefix("request drift: root (root session), model call 1 (turn 1 step 1): the system prompt changed"))
	})

	It("junit: one testcase per scenario, a failure with the first difference and the full report", func() {
		root := fixtureCopy("fork/codeword", "spawn/one-child", "spawn/two-sequential")
		breakGolden(root)
		breakLog(root)
		r := cli(root, nil, "check", "fixtures", "--format", "junit")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stdout).To(HavePrefix(`<?xml version="1.0" encoding="UTF-8"?>`))

		type problem struct {
			Message string `xml:"message,attr"`
			Text    string `xml:",chardata"`
		}
		var doc struct {
			XMLName xml.Name `xml:"testsuites"`
			Suites  []struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
				Errors   int `xml:"errors,attr"`
				Cases    []struct {
					Classname string   `xml:"classname,attr"`
					Name      string   `xml:"name,attr"`
					Failure   *problem `xml:"failure"`
					Error     *problem `xml:"error"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		dec := xml.NewDecoder(strings.NewReader(r.stdout))
		dec.Strict = true
		Expect(dec.Decode(&doc)).To(Succeed(), r.stdout)
		Expect(doc.Suites).To(HaveLen(1))
		s := doc.Suites[0]
		Expect(s.Tests).To(Equal(3))
		Expect(s.Failures).To(Equal(2))
		Expect(s.Errors).To(Equal(0))
		Expect(s.Cases).To(HaveLen(3))

		Expect(s.Cases[0].Classname).To(Equal("fork"))
		Expect(s.Cases[0].Name).To(Equal("fork/codeword"))
		Expect(s.Cases[0].Failure).NotTo(BeNil())
		Expect(s.Cases[0].Failure.Message).To(HaveSuffix("at golden line 5, replay line 5: -    assistant: Okay"))
		Expect(s.Cases[0].Failure.Text).To(ContainSubstring("[diff -golden +replay]\n"), "the report keeps its lines")
		Expect(s.Cases[0].Failure.Text).To(ContainSubstring("update the golden with:\n  go tool agentsnap check --update "))

		Expect(s.Cases[1].Classname).To(Equal("spawn"))
		Expect(s.Cases[1].Name).To(Equal("spawn/one-child"))
		Expect(s.Cases[1].Failure.Message).To(HavePrefix(`log difference: root (root session): seq 39`))
		Expect(s.Cases[1].Failure.Text).To(ContainSubstring(`golden "XA fresh child`))

		Expect(s.Cases[2].Name).To(Equal("spawn/two-sequential"))
		Expect(s.Cases[2].Failure).To(BeNil())
		Expect(s.Cases[2].Error).To(BeNil())
	})

	It("junit: an unloadable fixture is an error", func() {
		root := fixtureCopy("spawn/two-sequential")
		bad := filepath.Join(root, "fixtures/spawn/two-sequential", fixture.ChildLog(2))
		Expect(os.WriteFile(bad, []byte("garbage\n"), 0o644)).To(Succeed())
		r := cli(root, nil, "check", "--format", "junit")
		Expect(r.code).To(Equal(exitFail))
		var doc junitDoc
		Expect(decodeStrict(r.stdout, &doc)).To(Succeed(), r.stdout)
		Expect(doc.Suite.Errors).To(Equal(1))
		Expect(doc.Suite.Failures).To(Equal(0))
		Expect(doc.Suite.Case.Failure).To(BeNil())
		Expect(doc.Suite.Case.Error).NotTo(BeNil())
		Expect(doc.Suite.Case.Error.Message).To(HavePrefix("fixture: bad fixture: " + bad + ":1: "))
		Expect(doc.Suite.Case.Error.Text).To(Equal(doc.Suite.Case.Error.Message))
	})

	It("junit: stays valid XML when a transcript holds what XML cannot, or ends a CDATA section", func() {
		root := fixtureCopy("fork/codeword")
		replaceIn(filepath.Join(root, "fixtures/fork/codeword", fixture.GoldenFile), "assistant: OK", "assistant: OK \x1b[31m ]]> <b>")
		r := cli(root, nil, "check", "--format", "junit")
		Expect(r.code).To(Equal(exitFail))
		var doc junitDoc
		Expect(decodeStrict(r.stdout, &doc)).To(Succeed(), r.stdout)
		Expect(doc.Suite.Case.Failure).NotTo(BeNil())
		Expect(doc.Suite.Case.Failure.Message).To(HaveSuffix("-    assistant: OK \uFFFD[31m ]]> <b>"))
		Expect(doc.Suite.Case.Failure.Text).To(ContainSubstring("-    assistant: OK \uFFFD[31m ]]> <b>\n+    assistant: OK\n"))
	})

	It("text is the default and prints the same table", func() {
		root := fixtureCopy("fork/codeword", "spawn/one-child")
		breakGolden(root)
		def := cli(root, nil, "check")
		text := cli(root, nil, "check", "--format", "text")
		Expect(text.code).To(Equal(def.code))
		Expect(text.stdout).To(Equal(def.stdout))
		Expect(text.stdout).To(MatchRegexp(`(?m)^fork/codeword\s+2\s+4\s+FAIL golden$`))
	})

	It("refuses an unknown format with the usage", func() {
		r := cli(fixtureCopy("spawn/one-child"), nil, "check", "--format", "xml")
		Expect(r.code).To(Equal(exitUsage))
		Expect(r.stdout).To(BeEmpty())
		Expect(r.stderr).To(HavePrefix("agentsnap check: --format \"xml\": want text, json or junit\nusage: agentsnap check "))
	})
})

var _ = Describe("xmlText", func() {
	It("keeps what XML holds and replaces the rest", func() {
		Expect(xmlText("a\tb\nc é 😀")).To(Equal("a\tb\nc é 😀"))
		Expect(xmlText("a\x1bb\x00c\uFFFE")).To(Equal("a\uFFFDb\uFFFDc\uFFFD"))
	})
})

var _ = Describe("firstDifference", func() {
	It("names the most telling problem first: drift, the replay driver, a replay error, a log difference, a stale recording, a category rule, then the transcript", func() {
		fx := &fixture.Fixture{Dir: "fixtures/fork/x", Name: "fork/x", Golden: "fixtures/fork/x/" + fixture.GoldenFile}
		o := &harness.Outcome{
			Fixture:     fx,
			Transcript:  "a\nB\nc\n",
			Drift:       &judge.Drift{Session: "root", Lineage: "root session", Call: 1, Turn: 1, Step: 1, Changes: []string{"the system prompt changed"}},
			Consumption: errors.New("fakellm: 1 recorded call never replayed\nthe details"),
			RunErrors:   []error{errors.New("agent: the tool failed\nthe details"), errors.New("agent: a second error")},
			Differences: []judge.Difference{
				{Session: "root", Lineage: "root session", Seq: 3, Type: "assistant/message", Note: "the first"},
				{Session: "session 1", Lineage: "fork of root via call_f", Seq: 4, Type: "tool/result", Note: "the second"},
			},
			Stale:          "playbook.json changed since the recording\nre-record",
			RuleViolations: []string{"a scenario in fork/ needs a fork child\nmore", "a second rule"},
		}
		g := judge.GoldenResult{Path: fx.Golden, Message: "the transcript differs from the golden\nthe diff"}
		golden := "a\nb\nc\n"
		steps := []struct {
			want string
			fix  func()
		}{
			{"request drift: root (root session), model call 1 (turn 1 step 1): the system prompt changed", func() { o.Drift = nil }},
			{"replay driver: fakellm: 1 recorded call never replayed", func() { o.Consumption = nil }},
			{"replay error: agent: the tool failed", func() { o.RunErrors = nil }},
			{"log difference: " + o.Differences[0].String(), func() { o.Differences = nil }},
			{"stale recording: playbook.json changed since the recording", func() { o.Stale = "" }},
			{"category fork: a scenario in fork/ needs a fork child", func() { o.RuleViolations = nil }},
			{"the transcript differs from " + fx.Golden + " at golden line 2, replay line 2: -b", func() {}},
		}
		for _, s := range steps {
			Expect(firstDifference(o, g, &golden)).To(Equal(s.want))
			s.fix()
		}
		Expect(firstDifference(o, g, nil)).To(Equal("the transcript differs from the golden"), "without the golden's text, the message's first line")
		Expect(firstDifference(o, judge.GoldenResult{Path: fx.Golden}, &golden)).To(BeEmpty(), "nothing differs")
	})
})
