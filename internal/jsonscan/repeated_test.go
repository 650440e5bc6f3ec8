package jsonscan_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

var _ = Describe("Repeated", func() {
	repeat := func(line int, path string, first int) string {
		return fmt.Sprintf("line %d: member %q is repeated (first at line %d); keep one of them", line, path, first)
	}

	DescribeTable("names each repeated member by its path and both lines",
		func(text string, want ...string) {
			Expect(jsonscan.Repeated([]byte(text), nil)).To(Equal(want))
		},
		Entry("at the top level", "{\"a\": 1,\n\"b\": 2,\n\"a\": 3}", repeat(3, "a", 1)),
		Entry("deep inside, through arrays",
			"{\"s\": {\"root\": [{\"text\": \"x\"},\n{\"calls\": [[{\"id\": 1,\n\"id\": 2}]]}]}}",
			repeat(3, "s.root[1].calls[0][0].id", 2)),
		Entry("in an object that is an element of the whole text", "[1, {\"k\": 1, \"k\": 2}]", repeat(1, "[1].k", 1)),
		Entry("three times, each time after the first", "{\"a\": 1,\n\"a\": 2,\n\"a\": 3}", repeat(2, "a", 1), repeat(3, "a", 1)),
		Entry("in two objects, each in its own", "{\"x\": {\"k\": 1, \"k\": 2},\n\"y\": {\"k\": 1,\n\"k\": 2}}",
			repeat(1, "x.k", 1), repeat(3, "y.k", 2)),
		Entry("spelled once with an escape, compared decoded", "{\"k\": 1,\n\"\\u006b\": 2}", repeat(2, "k", 1)),
		Entry("two names whose invalid bytes both read as U+FFFD", "{\"\xff\": 1,\n\"\xfe\": 2}", repeat(2, "\uFFFD", 1)),
		Entry("the empty name, then a member inside it", "{\"\": {\"k\": 1, \"k\": 2}, \"\": 3}", repeat(1, ".k", 1), repeat(1, "", 1)),
		Entry("past the names compared one by one", manyMembers(40, 39, "\n"), repeat(41, "m39", 40)),
	)

	DescribeTable("finds nothing where no object repeats a member",
		func(text string) {
			Expect(jsonscan.Repeated([]byte(text), nil)).To(BeEmpty())
		},
		Entry("the same name in two objects", `{"a": {"k": 1}, "b": {"k": 2}, "k": [{"k": 3}, {"k": 4}]}`),
		Entry("the same name in an object and the one inside it", `{"k": {"k": {"k": 1}}}`),
		Entry("names that differ in case only", `{"text": 1, "Text": 2}`),
		Entry("a name repeated as a string value", `{"k": "k", "v": ["k", "k"]}`),
		Entry("many names, all different", manyMembers(100, -1, "")),
		Entry("not an object", `[1, "a", true, null]`),
		Entry("broken JSON: the walk stops", `{"a": 1, "b": }`),
		Entry("nothing", ``),
	)

	It("looks inside a top-level member only when inside says so, and reports a repeated one either way", func() {
		text := []byte(`{"kept": {"k": 1, "k": 2}, "read": {"k": 1, "k": 2}, "kept": 3}`)
		inside := func(key []byte) bool { return string(key) == "read" }
		Expect(jsonscan.Repeated(text, inside)).To(Equal([]string{repeat(1, "read.k", 1), repeat(1, "kept", 1)}))
	})

	It("spells out the first 20 repeats and counts the rest", func() {
		got := jsonscan.Repeated([]byte(`{"k": [`+strings.Repeat(`{"a": 1, "a": 2},`, 24)+`{"a": 1, "a": 2}]}`), nil)
		Expect(got).To(HaveLen(21))
		Expect(got[19]).To(Equal(repeat(1, "k[19].a", 1)))
		Expect(got[20]).To(Equal("and 5 more repeated members; keep one of each"))
		Expect(jsonscan.Repeated([]byte(`{"k": [`+strings.Repeat(`{"a": 1, "a": 2},`, 19)+`{"a": 1, "a": 2}]}`), nil)).To(HaveLen(20))
	})

	It("costs no allocation when nothing repeats", func() {
		text := []byte(`{"a": {"b": [{"c": 1, "d": [1, 2, {"e": null}]}], "f": "g"}, "h": {"i": {"j": {"k": true}}}, "l": []}`)
		Expect(testing.AllocsPerRun(20, func() { _ = jsonscan.Repeated(text, nil) })).To(BeZero())
		wide := []byte(manyMembers(16, -1, ""))
		Expect(testing.AllocsPerRun(20, func() { _ = jsonscan.Repeated(wide, nil) })).To(BeZero())
	})
})

// manyMembers is an object of n members "m0", "m1", ..., one a line after
// sep; when repeat >= 0 the last one is named "m<repeat>" again.
func manyMembers(n, repeat int, sep string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString("," + sep)
		}
		fmt.Fprintf(&b, `"m%d": %d`, i, i)
	}
	if repeat >= 0 {
		fmt.Fprintf(&b, ","+sep+`"m%d": 0`, repeat)
	}
	return b.String() + "}"
}

// stdRepeats counts the repeated members of a valid JSON text with
// encoding/json's tokens, as the reference for FuzzRepeated.
func stdRepeats(b []byte) int {
	dec := json.NewDecoder(bytes.NewReader(b))
	type level struct {
		object bool
		seen   map[string]bool
		key    bool // the next string token is a member name
	}
	var stack []*level
	n := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return n
		}
		var top *level
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if s, ok := tok.(string); ok && top != nil && top.object && top.key {
			if top.seen[s] {
				n++
			}
			top.seen[s], top.key = true, false
			continue
		}
		if top != nil && top.object {
			top.key = true // a value ends: a name follows, or the end
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &level{object: true, seen: map[string]bool{}, key: true})
		case json.Delim('['):
			stack = append(stack, &level{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].object {
				stack[len(stack)-1].key = true
			}
		}
	}
}

// countRepeats is how many repeats Repeated's problems report: one a
// problem, the last one past maxRepeats counting the rest.
func countRepeats(problems []string) int {
	var more int
	if n := len(problems); n > 0 {
		if _, err := fmt.Sscanf(problems[n-1], "and %d more", &more); err == nil {
			return n - 1 + more
		}
	}
	return len(problems)
}

// FuzzRepeated checks that Repeated finds in a valid JSON text as many
// repeated members as encoding/json's tokens show, never panicking on any
// text.
func FuzzRepeated(f *testing.F) {
	for _, s := range []string{
		`{"a": 1, "a": 2}`, `{"a": {"b": [{"c": 1, "c": 2}]}, "b": {"c": 3}}`, `[{"k": 1}, {"k": 1}]`,
		"{\"k\": 1, \"\\u006b\": 2}", "{\"\xff\": 1, \"\xfe\": 2}", manyMembers(40, 3, ""), `{"a": [}`, `{}`,
		`[` + strings.Repeat(`{"a": 1, "a": 2},`, 24) + `{"a": 1, "a": 2}]`, // past the 20 spelled out
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := jsonscan.Repeated(b, nil)
		if !json.Valid(b) {
			return
		}
		if want := stdRepeats(b); countRepeats(got) != want {
			t.Fatalf("Repeated found %d repeats, encoding/json's tokens show %d: %q in %q", len(got), want, got, b)
		}
	})
}
