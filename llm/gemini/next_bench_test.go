package gemini

import (
	"fmt"
	"strings"
	"testing"
)

// benchContents returns n contents of an agent's run: a user turn, then
// model functionCall / user functionResponse pairs, the calls named
// without ids (results are paired by name) and signed, as Gemini sends
// them.
func benchContents(n int) []string {
	out := []string{`{"role":"user","parts":[{"text":"Find the release owner and summarise what changed since the last release, please."}]}`}
	for i := 1; len(out) < n; i++ {
		out = append(out,
			fmt.Sprintf(`{"role":"model","parts":[{"text":"Looking up step %d.","thought":true},{"functionCall":{"name":"lookup","args":{"key":"fact-%d","limit":10}},"thoughtSignature":"c2lnbmF0dXJlLW9mLXRoZS1jYWxs"}]}`, i, i),
			fmt.Sprintf(`{"role":"user","parts":[{"functionResponse":{"name":"lookup","response":{"output":"value %d: the release v2.4.%d is owned by team-atlas, changed 14 files"}}}]}`, i, i))
	}
	return out[:n]
}

// benchBody is a request body as the genai SDK sends it (members in name
// order) with these contents.
func benchBody(contents []string) []byte {
	return []byte(`{"contents":[` + strings.Join(contents, ",") +
		`],"generationConfig":{"temperature":0.2},"systemInstruction":{"role":"user","parts":[{"text":"You are a release assistant."}]},` +
		`"tools":[{"functionDeclarations":[{"name":"lookup","description":"Look up a fact by key.","parametersJsonSchema":{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}}]}]}`)
}

// BenchmarkDecodeNext measures the cost per call of reading an agent's
// conversation that grows by two contents a call, at 41, 161 and 641
// contents: read whole (DecodeRequest), and against the last request
// (DecodeNext). The incremental cost should not grow with the length but
// for comparing the body's bytes with the last one's.
func BenchmarkDecodeNext(b *testing.B) {
	for _, n := range []int{41, 161, 641} {
		b.Run(fmt.Sprintf("whole/%d", n), func(b *testing.B) {
			body := benchBody(benchContents(n))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeRequest(body); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("next/%d", n), func(b *testing.B) {
			benchNext(b, n)
		})
	}
}

// benchNext reads, call after call, a conversation growing from n to
// n+2*calls contents by two a call, each body against the last, as a
// session does; at the end it starts over from n (read whole, not
// timed), so every call is one read against the call before.
func benchNext(b *testing.B, n int) {
	const calls = 32
	all := benchContents(n + 2*calls)
	bodies := make([][]byte, calls+1)
	for k := range bodies {
		bodies[k] = benchBody(all[:n+2*k])
	}
	var prev *Decoded
	k := len(bodies)
	b.ReportAllocs()
	for b.Loop() {
		if k == len(bodies) {
			b.StopTimer()
			var err error
			if prev, err = DecodeNext(nil, bodies[0]); err != nil {
				b.Fatal(err)
			}
			k = 1
			b.StartTimer()
		}
		d, err := DecodeNext(prev, bodies[k])
		if err != nil || d.Reused == 0 {
			b.Fatalf("not read against the last request: %v", err)
		}
		prev, k = d, k+1
	}
}
