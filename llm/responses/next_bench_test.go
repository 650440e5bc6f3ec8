package responses

import (
	"fmt"
	"strings"
	"testing"
)

// benchItems returns n input items of an agent's run as openai-go sends
// them with store off: a user message, then pairs of a function call the
// answer made (sent back with its id) and the call's output.
func benchItems(n int) []string {
	out := []string{`{"content":"Find the release owner and summarise what changed since the last release, please.","role":"user"}`}
	for i := 1; len(out) < n; i++ {
		out = append(out,
			fmt.Sprintf(`{"arguments":"{\"key\":\"fact-%d\",\"limit\":10}","call_id":"call_%d","name":"lookup","type":"function_call","id":"fc_%d","status":"completed"}`, i, i, i),
			fmt.Sprintf(`{"call_id":"call_%d","output":"value %d: the release v2.4.%d is owned by team-atlas, changed 14 files","type":"function_call_output"}`, i, i, i))
	}
	return out[:n]
}

// benchBody is a request body as openai-go sends it (members in its
// order) with these items.
func benchBody(items []string) []byte {
	return []byte(`{"input":[` + strings.Join(items, ",") + `],"model":"gpt-5","instructions":"You are a release assistant.","store":false,` +
		`"tools":[{"name":"lookup","parameters":{"properties":{"key":{"type":"string"}},"required":["key"],"type":"object"},"strict":true,"type":"function","description":"Look up a fact by key."}],` +
		`"reasoning":{"effort":"low"},"stream":true}`)
}

// BenchmarkDecodeNext measures the cost per call of reading an agent's
// input that grows by two items a call, at 41, 161 and 641 items: read
// whole (Decode), and against the last request (DecodeNext), in runs of 8
// calls from the same request read whole (once, not measured), so 2 to 16
// items longer. The incremental cost should not grow with the length but
// for comparing the body's bytes with the last one's.
func BenchmarkDecodeNext(b *testing.B) {
	const steps = 8
	for _, n := range []int{41, 161, 641} {
		b.Run(fmt.Sprintf("whole/%d", n), func(b *testing.B) {
			s := NewServed()
			body := benchBody(benchItems(n))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Decode(body); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("next/%d", n), func(b *testing.B) {
			s := NewServed()
			items := benchItems(n + 2*steps)
			bodies := make([][]byte, steps+1)
			for k := range bodies {
				bodies[k] = benchBody(items[:n+2*k])
			}
			first := mustDecodeNext(b, s, nil, bodies[0])
			var prev *Next
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if i%steps == 0 {
					// The first request again, as read whole: a copy, its
					// messages not yet grown in place.
					prev = &Next{Decoded: first.Decoded, served: s, body: first.body, at: first.at, msgs: first.msgs,
						instr: first.instr, sys: first.sys, open: first.open, epoch: first.epoch}
				}
				prev = mustDecodeNext(b, s, prev, bodies[i%steps+1])
			}
			b.StopTimer()
			if prev.Reused == 0 {
				b.Fatal("the last request was read whole")
			}
		})
	}
}

func mustDecodeNext(b *testing.B, s *Served, prev *Next, body []byte) *Next {
	d, err := s.DecodeNext(prev, body)
	if err != nil {
		b.Fatal(err)
	}
	return d
}
