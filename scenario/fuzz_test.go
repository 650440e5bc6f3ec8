package scenario_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentsnap/agentsnap/scenario"
)

// fuzzPath names the fuzzed scenario.json in errors.
const fuzzPath = "fuzz/scenario.json"

// FuzzParse feeds arbitrary bytes to Parse. Parsing must never panic and
// fail only with ErrInvalid naming the file. A scenario it accepts is
// within every bound and valid; its Encode parses back to the same
// scenario.json text; and WithRecorded changes its recorded member only:
// the text that comes back parses to the same scenario with that member
// set. The seeds are the committed fixtures' scenario.json files, the
// cases below and testdata/fuzz/FuzzParse (the inputs the trust review
// found: repeated members, numeric extremes). To fuzz:
//
//	go test -run '^$' -fuzz '^FuzzParse$' -fuzztime 120s ./scenario
func FuzzParse(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "fixtures", "*", "*", scenario.File))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		minimal,
		`{"prompts":["a"],"maxDepth":64,"maxAttempts":100,"schedules":10000,"turnTimeout":"1h","serial":true}`,
		`{"prompts":["a"],"maxDepth":-1,"maxAttempts":1e3,"schedules":9223372036854775807,"turnTimeout":"-1s"}`,
		`{"prompts":["a"],"prices":{"m":{"input":0.15,"output":0.6,"cacheRead":0.075}},"data":{"k":"v"}}`,
		`{"prompts":["a"],"recorded":{"model":"m","at":"t","by":"b"},"recorded":{"model":"n","at":"t","by":"b"}}`,
		`{"prompts":["a"],"agent":{"tools":["x"],"tools":["y"]},"owner":{"k":1,"k":2}}`,
		`{"Prompts":["a"],"maxDeph":2,"prompts":["b"]}`,
		"{\n\"prompts\": [\"\\u0000\", \"\\n\"]\n}", `{"prompts":[]}`, `{}`, `[]`, `null`, `{"prompts":`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scenario.Parse(data, fuzzPath)
		if err != nil {
			if !errors.Is(err, scenario.ErrInvalid) || !strings.HasPrefix(err.Error(), "scenario: "+fuzzPath+": ") {
				t.Fatalf("a parse error does not match ErrInvalid or does not name the file: %v", err)
			}
			return
		}
		checkAccepted(t, sc)
		enc, err := sc.Encode()
		if err != nil {
			t.Fatalf("Encode of an accepted scenario: %v", err)
		}
		back, err := scenario.Parse(enc, fuzzPath)
		if err != nil {
			t.Fatalf("the encoded scenario does not parse: %v\n%s", err, enc)
		}
		if again, _ := back.Encode(); !bytes.Equal(again, enc) {
			t.Fatalf("Encode is not stable through Parse:\n%s\nthen\n%s", enc, again)
		}
		rec := &scenario.Recorded{Provider: "p", Model: "m", At: "t", By: "b", Runtime: "r", Playbook: "d"}
		out, err := scenario.WithRecorded(data, rec)
		if err != nil {
			t.Fatalf("WithRecorded of an accepted scenario: %v", err)
		}
		rewritten, err := scenario.Parse(out, fuzzPath)
		if err != nil {
			t.Fatalf("the text WithRecorded returns does not parse: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(rewritten.Recorded, rec) {
			t.Fatalf("WithRecorded wrote %+v, the text reads back %+v", rec, rewritten.Recorded)
		}
		rewritten.Recorded, sc.Recorded = nil, nil
		a, _ := rewritten.Encode()
		b, _ := sc.Encode()
		if !bytes.Equal(a, b) {
			t.Fatalf("WithRecorded changed more than recorded:\n%s\nthen\n%s", b, a)
		}
	})
}

// checkAccepted fails when an accepted scenario breaks a bound or Validate.
func checkAccepted(t *testing.T, sc *scenario.Scenario) {
	t.Helper()
	if err := sc.Validate(); err != nil {
		t.Fatalf("Parse accepted a scenario Validate refuses: %v", err)
	}
	switch {
	case sc.MaxDepth < 0 || sc.MaxDepth > scenario.DepthLimit,
		sc.MaxAttempts < 0 || sc.MaxAttempts > scenario.AttemptsLimit,
		sc.Schedules < 0 || sc.Schedules > scenario.SchedulesLimit,
		time.Duration(sc.TurnTimeout) < 0 || time.Duration(sc.TurnTimeout) > scenario.TurnTimeoutLimit:
		t.Fatalf("Parse accepted a number out of bounds: %+v", sc)
	}
	for model, p := range sc.Prices {
		for _, v := range []float64{p.Input, p.Output, p.CacheRead} {
			if !(v >= 0 && v <= scenario.PriceLimit) {
				t.Fatalf("Parse accepted price %v for %s", v, model)
			}
		}
	}
}
