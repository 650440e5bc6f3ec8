package jsonscan_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// validityCases are JSON texts on both sides of the grammar's edges.
var validityCases = []string{
	// valid
	`{}`, ` { } `, `{"a":1}`, `{"a":{"b":[1,2,{"c":null}]},"d":"e"}`, `[]`, `[1, 2 ,3]`, `"s"`, `0`, `-0`, `1.5e10`,
	`-1E-2`, `1e+2`, `true`, `false`, `null`, `"\u00e9\n\t\"\\\/\b\f\r"`, `"\ud83d\ude00"`, `"\udc00"`, "\"\xff\xfe\"",
	"\"\u2028\"", "{\"k\":\"caf\u00e9\"}\t\r\n", `{"a":1,"a":2}`, `{"":""}`, `[[[[[]]]]]`, `"\u0000"`, "\"\x7f\"",
	// invalid
	``, ` `, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`, `{"a" 1}`, `{a:1}`, `{'a':1}`, `[1,]`, `[,1]`, `[1 2]`,
	`01`, `1.`, `.5`, `1e`, `1e+`, `-`, `--1`, `+1`, `0x10`, `NaN`, `Infinity`, `tru`, `nul`, `True`, `"abc`,
	`"\x"`, `"\u12"`, `"\u12G4"`, "\"a\nb\"", "\"\t\"", `{"a":1}}`, `{"a":1} {"b":2}`, `[1] x`, `"s" "t"`, `1 2`,
	`{"a":1}x`, `{"a":[}`, `{"a":"\"}`, "\x00", "{\"a\":1}\x00",
}

var _ = Describe("validation", func() {
	DescribeTable("SkipValue agrees with encoding/json on where a value is valid",
		func(text string) {
			b := []byte(text)
			i := jsonscan.SkipSpace(b, 0)
			end, err := jsonscan.SkipValue(b, i)
			ours := err == nil && jsonscan.SkipSpace(b, end) == len(b)
			Expect(ours).To(Equal(json.Valid(b)), "SkipValue(%q) = %d, %v", text, end, err)
		},
		entries(validityCases),
	)

	DescribeTable("Object accepts exactly the valid texts that are objects",
		func(text string) {
			b := []byte(text)
			err := jsonscan.Object(b, nil)
			valid := json.Valid(b)
			isObject := valid && strings.TrimLeft(text, " \t\r\n")[0] == '{'
			Expect(err == nil).To(Equal(isObject), "Object(%q) = %v", text, err)
			var notObj *jsonscan.ErrNotObject
			var syn *jsonscan.SyntaxError
			switch {
			case isObject:
			case valid:
				Expect(errors.As(err, &notObj)).To(BeTrue(), "valid non-object %q: %v", text, err)
			default:
				Expect(errors.As(err, &syn)).To(BeTrue(), "invalid %q: %v", text, err)
			}
		},
		entries(validityCases),
	)

	It("bounds nesting at MaxDepth like encoding/json", func() {
		at := strings.Repeat("[", jsonscan.MaxDepth) + strings.Repeat("]", jsonscan.MaxDepth)
		over := "[" + at + "]"
		_, err := jsonscan.SkipValue([]byte(at), 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(json.Valid([]byte(at))).To(BeTrue())
		_, err = jsonscan.SkipValue([]byte(over), 0)
		Expect(err).To(MatchError(ContainSubstring("nesting deeper than 10000")))
		Expect(json.Valid([]byte(over))).To(BeFalse())

		deepObj := `{"a":` + strings.Repeat(`{"a":`, jsonscan.MaxDepth) + "1" + strings.Repeat("}", jsonscan.MaxDepth+1)
		Expect(jsonscan.Object([]byte(deepObj), nil)).To(MatchError(ContainSubstring("nesting deeper")))
	})

	DescribeTable("syntax errors say what and where",
		func(text, message string) {
			err := jsonscan.Object([]byte(text), nil)
			Expect(err).To(MatchError(message))
		},
		Entry("empty", ``, "empty input, expected a JSON object at byte 1"),
		Entry("cut short", `{"a":1`, "unexpected end of line in object at byte 7"),
		Entry("bad member name", `{a:1}`, `unexpected 'a' in object, expected a member name at byte 2`),
		Entry("missing colon", `{"a" 1}`, `unexpected '1' after member name, expected ':' at byte 6`),
		Entry("bad separator", `{"a":1;"b":2}`, `unexpected ';' in object, expected ',' or '}' at byte 7`),
		Entry("bad value", `{"a":?}`, `unexpected '?', expected a value at byte 6`),
		Entry("control byte", "{\"a\":\x01}", `unexpected byte 0x01, expected a value at byte 6`),
		Entry("control character in a string", "{\"a\":\"x\ty\"}", "control character in string at byte 8"),
		Entry("bad escape", `{"a":"\q"}`, `invalid escape 'q' in string at byte 7`),
		Entry("unterminated string", `{"a":"xy`, "unterminated string at byte 6"),
		Entry("bad literal", `{"a":nul}`, "invalid literal, expected null at byte 6"),
		Entry("bad number", `{"a":1.}`, "invalid number at byte 6"),
		Entry("garbage after the object", `{} x`, `unexpected 'x' after the object at byte 4`),
		Entry("garbage after a non-object", `[] x`, `unexpected 'x' after the value at byte 4`),
		Entry("a non-object", ` [1]`, "expected a JSON object, found an array"),
	)
})

var _ = Describe("Object members", func() {
	type member struct {
		Key string
		Val string
	}

	It("yields every member in order with its exact value span, duplicates included", func() {
		text := ` {"a" : 1 , "b":{"x":[1, 2]},"c\u0064":"s\"q","a":null} `
		var got []member
		err := jsonscan.Object([]byte(text), func(key []byte, esc bool, val []byte) error {
			got = append(got, member{jsonscan.Key(key, esc), string(val)})
			return nil
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal([]member{{"a", "1"}, {"b", `{"x":[1, 2]}`}, {"cd", `"s\"q"`}, {"a", "null"}}))
	})

	It("stops at the first error of the callback and returns it as is", func() {
		stop := errors.New("stop")
		n := 0
		err := jsonscan.Object([]byte(`{"a":1,"b":2}`), func([]byte, bool, []byte) error {
			n++
			return stop
		})
		Expect(err).To(BeIdenticalTo(stop))
		Expect(n).To(Equal(1))
	})

	It("walks a validated object value with Members", func() {
		var keys []string
		Expect(jsonscan.Members([]byte(`{"x":1,"y":[]}`), func(key []byte, esc bool, _ []byte) error {
			keys = append(keys, jsonscan.Key(key, esc))
			return nil
		})).To(Succeed())
		Expect(keys).To(Equal([]string{"x", "y"}))
		Expect(jsonscan.Members([]byte(`[1]`), nil)).To(MatchError("expected an object, found an array"))
	})
})

var _ = Describe("value decoders", func() {
	DescribeTable("String decodes like encoding/json",
		func(raw string) {
			var want string
			Expect(json.Unmarshal([]byte(raw), &want)).To(Succeed())
			Expect(jsonscan.String([]byte(raw))).To(Equal(want))
		},
		Entry("plain", `"abc"`),
		Entry("empty", `""`),
		Entry("escapes", `"a\"b\\c\/d\n\t\r\b\f"`),
		Entry("unicode escapes and a surrogate pair", `"\u00e9\u2028\ud83d\ude00"`),
		Entry("a lone surrogate", `"\ud800x"`),
		Entry("a high surrogate before a plain escape", `"\ud83d\u0041"`),
		Entry("surrogates in the wrong order", `"\udc00\ud800"`),
		Entry("a high surrogate at the end", `"ab\ud83d"`),
		Entry("an escaped backslash before a u", `"\\u00e9"`),
		Entry("upper-case hex", `"\u00C9\uD83D\uDE00"`),
		Entry("escapes beside invalid UTF-8", "\"\\n\xff\\t\xc3\""),
		Entry("raw non-ASCII", `"naïve — 日本語"`),
		Entry("invalid UTF-8", "\"a\xffb\xc3\""),
	)

	DescribeTable("decoders refuse the wrong kind with a readable message",
		func(f func() error, message string) {
			Expect(f()).To(MatchError(message))
		},
		Entry("String of a number", func() error { _, err := jsonscan.String([]byte(`12`)); return err }, "expected a string, found a number"),
		Entry("String of nothing", func() error { _, err := jsonscan.String(nil); return err }, "expected a string, found nothing"),
		Entry("String of a torn string", func() error { _, err := jsonscan.String([]byte(`"ab`)); return err }, "expected a string, found a string"),
		Entry("String of a broken escape", func() error { _, err := jsonscan.String([]byte(`"a\"`)); return err }, `expected a string, found broken JSON "\"a\\\""`),
		Entry("String of a short \\u escape", func() error { _, err := jsonscan.String([]byte(`"\u12"`)); return err }, `expected a string, found broken JSON "\"\\u12\""`),
		Entry("Int of a string", func() error { _, err := jsonscan.Int([]byte(`"1"`)); return err }, "expected an integer, found a string"),
		Entry("Int of a fraction", func() error { _, err := jsonscan.Int([]byte(`1.5`)); return err }, "expected an integer, found 1.5"),
		Entry("Int of an exponent", func() error { _, err := jsonscan.Int([]byte(`1e3`)); return err }, "expected an integer, found 1e3"),
		Entry("Int out of range", func() error { _, err := jsonscan.Int([]byte(`9223372036854775808`)); return err }, "expected an integer, found 9223372036854775808"),
		Entry("Int of a lone minus", func() error { _, err := jsonscan.Int([]byte(`-`)); return err }, "expected an integer, found -"),
		Entry("Bool of null", func() error { _, err := jsonscan.Bool([]byte(`null`)); return err }, "expected a boolean, found null"),
		Entry("Ints of an object", func() error { _, err := jsonscan.Ints([]byte(`{}`)); return err }, "expected an array of integers, found an object"),
		Entry("Ints with a string", func() error { _, err := jsonscan.Ints([]byte(`[1,"2"]`)); return err }, "expected an integer, found a string"),
		Entry("Ints missing a comma", func() error { _, err := jsonscan.Ints([]byte(`[1 2]`)); return err }, "unexpected '2' in array, expected ',' or ']' at byte 4"),
		Entry("Ints with a trailing comma", func() error { _, err := jsonscan.Ints([]byte(`[1,]`)); return err }, "unexpected ']', expected a value at byte 4"),
		Entry("Ints cut short", func() error { _, err := jsonscan.Ints([]byte(`[1,2`)); return err }, "unexpected end of line in array, expected ',' or ']' at byte 5"),
		Entry("Ints with garbage after", func() error { _, err := jsonscan.Ints([]byte(`[1]x`)); return err }, "unexpected 'x' after the array at byte 4"),
		Entry("Strings with a number", func() error { _, err := jsonscan.Strings([]byte(`["a",1]`)); return err }, "expected a string, found a number"),
	)

	It("decodes integers at the edges of int64", func() {
		for _, n := range []string{"0", "-0", "7", "-42", "999999999999999999", "-999999999999999999", "9223372036854775807", "-9223372036854775808"} {
			var want int64
			Expect(json.Unmarshal([]byte(n), &want)).To(Succeed())
			Expect(jsonscan.Int([]byte(n))).To(Equal(want), n)
		}
	})

	It("decodes arrays of integers and strings, empty ones as empty, not nil", func() {
		Expect(jsonscan.Ints([]byte(`[ 1 , -2,3 ]`))).To(Equal([]int64{1, -2, 3}))
		Expect(jsonscan.Ints([]byte(`[ ]`))).To(Equal([]int64{}))
		Expect(jsonscan.Strings([]byte(`["a", "\u00e9"]`))).To(Equal([]string{"a", "é"}))
		Expect(jsonscan.Strings([]byte(`[]`))).To(Equal([]string{}))
		Expect(jsonscan.Bool([]byte(`true`))).To(BeTrue())
		Expect(jsonscan.IsNull([]byte(`null`))).To(BeTrue())
		Expect(jsonscan.IsNull([]byte(`"null"`))).To(BeFalse())
	})

	It("names kinds and bytes for messages", func() {
		Expect([]string{jsonscan.Kind('{'), jsonscan.Kind('['), jsonscan.Kind('"'), jsonscan.Kind('t'), jsonscan.Kind('n'), jsonscan.Kind('-')}).
			To(Equal([]string{"an object", "an array", "a string", "a boolean", "null", "a number"}))
		Expect([]string{jsonscan.Describe([]byte("a"), 0), jsonscan.Describe([]byte("\x00"), 0), jsonscan.Describe(nil, 0)}).
			To(Equal([]string{"'a'", "byte 0x00", "end of line"}))
	})
})

// trickyStrings are strings whose JSON encoding is easy to get wrong.
var trickyStrings = []string{
	"", "plain", `quote " and backslash \`, "newline\n tab\t cr\r", "\x00\x01\x1f\x7f",
	"<html> & 'single'", "line sep \u2028 para sep \u2029", "é 日本語 😀", "\ufffd already a replacement",
	"invalid \xff byte", "truncated \xe6\x97", "surrogate half \xed\xa0\x80", "overlong \xc0\xaf", "/slash/",
}

var _ = Describe("AppendString", func() {
	DescribeTable("writes JSON that decodes to the input, as encoding/json would read it",
		func(s string) {
			out := jsonscan.AppendString([]byte("prefix:"), s)
			Expect(string(out)).To(HavePrefix("prefix:"))
			out = out[len("prefix:"):]
			Expect(json.Valid(out)).To(BeTrue(), "%q", out)
			var back string
			Expect(json.Unmarshal(out, &back)).To(Succeed())
			Expect(back).To(Equal(decodedByEncodingJSON(s)))
			if utf8.ValidString(s) {
				Expect(back).To(Equal(s))
			}
			Expect(jsonscan.String(out)).To(Equal(back), "our own decoder agrees")
			for _, r := range string(out) {
				Expect(r >= 0x20 && r != '\u2028' && r != '\u2029').To(BeTrue(), "%q holds a raw %U", out, r)
			}
		},
		entries(trickyStrings),
	)

	It("does not escape HTML characters, unlike encoding/json", func() {
		Expect(string(jsonscan.AppendString(nil, "<a>&"))).To(Equal(`"<a>&"`))
	})

	It("escapes the line separators JavaScript would split on", func() {
		Expect(string(jsonscan.AppendString(nil, "a\u2028b\u2029"))).To(Equal(`"a\u2028b\u2029"`))
	})
})

// decodedByEncodingJSON is what s becomes after a trip through
// encoding/json: every invalid UTF-8 byte turns into U+FFFD.
func decodedByEncodingJSON(s string) string {
	b, err := json.Marshal(s)
	Expect(err).NotTo(HaveOccurred())
	var back string
	Expect(json.Unmarshal(b, &back)).To(Succeed())
	return back
}

func entries(texts []string) []TableEntry {
	var out []TableEntry
	for _, t := range texts {
		out = append(out, Entry(fmt.Sprintf("%q", t), t))
	}
	return out
}
