package anthropic

import (
	"fmt"
	"strings"
	"testing"
)

// benchMessages returns n messages of an agent's run as anthropic-sdk-go
// sends them: a user turn, then pairs of an answer (thinking, text and a
// tool_use) and a user message of its tool_result, the latest marked for
// the prompt cache.
func benchMessages(n int) []string {
	out := []string{`{"content":[{"text":"Find the release owner and summarise what changed since the last release, please.","type":"text"}],"role":"user"}`}
	for i := 1; len(out) < n; i++ {
		out = append(out,
			fmt.Sprintf(`{"content":[{"signature":"c2lnbmF0dXJlLW9mLXRoZS1jYWxs","thinking":"Step %d: look it up.","type":"thinking"},{"text":"Looking up step %d.","type":"text"},`+
				`{"id":"toolu_%d","input":{"key":"fact-%d","limit":10},"name":"lookup","type":"tool_use"}],"role":"assistant"}`, i, i, i, i),
			fmt.Sprintf(`{"content":[{"tool_use_id":"toolu_%d","content":"value %d: the release v2.4.%d is owned by team-atlas, changed 14 files","is_error":false,"type":"tool_result",`+
				`"cache_control":{"type":"ephemeral"}}],"role":"user"}`, i, i, i))
	}
	return out[:n]
}

// benchBody is a request body as anthropic-sdk-go sends it (members in
// its order) with these messages.
func benchBody(msgs []string) []byte {
	return []byte(`{"max_tokens":1024,"messages":[` + strings.Join(msgs, ",") + `],"model":"claude-sonnet-4-5",` +
		`"system":[{"text":"You are a release assistant.","type":"text"}],"thinking":{"budget_tokens":1024,"type":"enabled"},` +
		`"tools":[{"input_schema":{"properties":{"key":{"type":"string"}},"required":["key"],"type":"object"},"name":"lookup","description":"Look up a fact by key."}],"stream":true}`)
}

// BenchmarkDecodeNext measures the cost per call of reading an agent's
// conversation that grows by two messages a call, at 41, 161 and 641
// messages: read whole (DecodeRequest), and against the last request
// (DecodeNext; moving: an agent that moves its breakpoint to the newest
// message on each call), in runs of 8 calls from the same request read whole
// (once, not measured), so 2 to 16 messages longer. The incremental cost should not
// grow with the length but for comparing the body's bytes with the last
// one's.
func BenchmarkDecodeNext(b *testing.B) {
	const steps = 8
	for _, n := range []int{41, 161, 641} {
		b.Run(fmt.Sprintf("whole/%d", n), func(b *testing.B) {
			body := benchBody(benchMessages(n))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeRequest(body); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, run := range []struct {
			name string
			msgs func(msgs []string) []string
		}{
			{"next", func(msgs []string) []string { return msgs }},
			// The agent marks only its newest message, so each call's
			// repeated messages differ from the last call's in the
			// breakpoint moved off its newest.
			{"moving", movingBreakpoint},
		} {
			b.Run(fmt.Sprintf("%s/%d", run.name, n), func(b *testing.B) {
				msgs := benchMessages(n + 2*steps)
				bodies := make([][]byte, steps+1)
				for k := range bodies {
					bodies[k] = benchBody(run.msgs(msgs[:n+2*k]))
				}
				first := mustDecodeNext(b, nil, bodies[0])
				var prev *Decoded
				whole := 0
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					if i%steps == 0 {
						// The first request again, as read whole: a copy, its
						// messages not yet grown in place.
						prev = &Decoded{Call: first.Call, body: first.body, at: first.at, msgs: first.msgs, marks: first.marks, tail: first.tail, ntail: first.ntail}
					}
					if prev = mustDecodeNext(b, prev, bodies[i%steps+1]); prev.Reused == 0 {
						whole++
					}
				}
				b.StopTimer()
				if whole > 0 {
					b.Fatalf("%d of %d calls were read whole", whole, b.N)
				}
			})
		}
	}
}

// movingBreakpoint returns msgs, the cache_control of every message but
// the last taken out: an agent that moves its one breakpoint to the
// newest message on each call.
func movingBreakpoint(msgs []string) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		if i < len(msgs)-1 {
			m = strings.Replace(m, `,"cache_control":{"type":"ephemeral"}`, "", 1)
		}
		out[i] = m
	}
	return out
}

func mustDecodeNext(b *testing.B, prev *Decoded, body []byte) *Decoded {
	d, err := DecodeNext(prev, body)
	if err != nil {
		b.Fatal(err)
	}
	return d
}
