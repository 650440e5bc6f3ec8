//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkServeAimockAPIs is BenchmarkServeAimock for the other three
// model APIs serve answers — Anthropic Messages (POST /v1/messages),
// Gemini (POST /v1beta/models/bench-model:streamGenerateContent?alt=sse)
// and OpenAI Responses (POST /v1/responses) — agentsnap serve against
// aimock (no floor: it writes Chat Completions frames only), the same load
// (the root's spawns as tool calls in each API's shape, its children's
// results as tool results) recorded in that API, the same figures and
// ratios. Each answer is read to its end (EOF) and must end as its API
// ends a stream: Anthropic with event message_stop, Gemini with a last
// chunk that has a finishReason, Responses with event response.completed;
// each child's answer must stream its words, each in a delta of its own.
// serve must exit 0: the replay matched its recording.
//
//	npm ci --prefix internal/aimock
//	go test -run '^$' -bench ServeAimockAPIs -benchtime 5x ./cmd/agentsnap
func BenchmarkServeAimockAPIs(b *testing.B) {
	bin := aimockBin(b)
	agentsnapBin := goBuild(b, b.TempDir(), "agentsnap", ".")
	for _, api := range []struct {
		name string
		api  *serveAPI
	}{{"anthropic", anthropicAPI}, {"gemini", geminiAPI}, {"responses", responsesAPI}} {
		b.Run(api.name, func(b *testing.B) {
			load := serveLoad{turns: 84, children: 24, words: 60, streams: 8, api: api.api}
			fx, mockFile := load.prepare(b, b.TempDir())
			var snap, mock []serveRound
			for i := 0; b.Loop(); i++ {
				// Each side goes first in turn.
				sides := []func(){
					func() { snap = append(snap, load.runServe(b, agentsnapBin, fx)) },
					func() { mock = append(mock, load.runAimock(b, bin, mockFile)) },
				}
				for j := range sides {
					sides[(i+j)%len(sides)]()
				}
			}
			s, m := medianRound(snap), medianRound(mock)
			load.reportSide(b, "agentsnap", s)
			load.reportSide(b, "aimock", m)
			reportVsAimock(b, s, m)
			b.ReportMetric(0, "ns/op")
		})
	}
}

// anthropicAPI is Anthropic Messages.
var anthropicAPI = &serveAPI{
	path: "/v1/messages",
	user: func(text string) []byte {
		return anthropicBody(map[string]string{"role": "user", "content": text})
	},
	results: func(prompt string, calls []loadCall, results []string) []byte {
		var uses, outs []any
		for i, c := range calls {
			uses = append(uses, map[string]any{"type": "tool_use", "id": c.id, "name": c.name, "input": json.RawMessage(c.args)})
			outs = append(outs, map[string]string{"type": "tool_result", "tool_use_id": c.id, "content": results[i]})
		}
		return anthropicBody(map[string]string{"role": "user", "content": prompt},
			map[string]any{"role": "assistant", "content": uses}, map[string]any{"role": "user", "content": outs})
	},
	check: func(l serveLoad, req request, body []byte) error {
		return l.checkSSE(req, body, `"text_delta"`, func(events, last []byte) bool {
			return bytes.Contains(events, []byte("event: message_stop"))
		})
	},
}

func anthropicBody(messages ...any) []byte {
	b, _ := json.Marshal(map[string]any{"model": "bench-model", "max_tokens": 1024, "stream": true, "system": serveBenchSystem, "messages": messages})
	return b
}

// geminiAPI is Gemini's streamGenerateContent, over SSE.
var geminiAPI = &serveAPI{
	path: "/v1beta/models/bench-model:streamGenerateContent?alt=sse",
	user: func(text string) []byte {
		return geminiBody(map[string]any{"role": "user", "parts": []any{map[string]string{"text": text}}})
	},
	results: func(prompt string, calls []loadCall, results []string) []byte {
		var fcs, frs []any
		for i, c := range calls {
			fcs = append(fcs, map[string]any{"functionCall": map[string]any{"id": c.id, "name": c.name, "args": json.RawMessage(c.args)}})
			frs = append(frs, map[string]any{"functionResponse": map[string]any{"id": c.id, "name": c.name, "response": map[string]string{"result": results[i]}}})
		}
		return geminiBody(map[string]any{"role": "user", "parts": []any{map[string]string{"text": prompt}}},
			map[string]any{"role": "model", "parts": fcs}, map[string]any{"role": "user", "parts": frs})
	},
	check: func(l serveLoad, req request, body []byte) error {
		// The stream ends at EOF; its last chunk says why.
		return l.checkSSE(req, body, "", func(_, last []byte) bool {
			return bytes.Contains(last, []byte(`"finishReason"`))
		})
	},
}

func geminiBody(contents ...any) []byte {
	b, _ := json.Marshal(map[string]any{"systemInstruction": map[string]any{"parts": []any{map[string]string{"text": serveBenchSystem}}}, "contents": contents})
	return b
}

// responsesAPI is OpenAI Responses, the whole conversation in each call
// (store false), as Chat sends it.
var responsesAPI = &serveAPI{
	path: "/v1/responses",
	user: func(text string) []byte {
		return responsesBody(map[string]string{"role": "user", "content": text})
	},
	results: func(prompt string, calls []loadCall, results []string) []byte {
		items := []any{map[string]string{"role": "user", "content": prompt}}
		for _, c := range calls {
			items = append(items, map[string]string{"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.args})
		}
		for i, c := range calls {
			items = append(items, map[string]string{"type": "function_call_output", "call_id": c.id, "output": results[i]})
		}
		return responsesBody(items...)
	},
	check: func(l serveLoad, req request, body []byte) error {
		return l.checkSSE(req, body, `"response.output_text.delta"`, func(events, _ []byte) bool {
			return bytes.Contains(events, []byte("event: response.completed"))
		})
	},
}

func responsesBody(input ...any) []byte {
	b, _ := json.Marshal(map[string]any{"model": "bench-model", "stream": true, "store": false, "instructions": serveBenchSystem, "input": input})
	return b
}

// checkSSE checks an SSE answer read to its end: ended reports, from its
// event lines and its last data line, whether the stream ended as its API
// ends one; a child's answer must stream its words, each in a data line of
// its own that contains delta ("" for any).
func (l serveLoad) checkSSE(req request, body []byte, delta string, ended func(events, last []byte) bool) error {
	var events, last []byte
	words, deltas := 0, 0
	for line := range bytes.Lines(body) {
		line = bytes.TrimRight(line, "\r\n")
		if bytes.HasPrefix(line, []byte("event:")) {
			events = append(append(events, line...), '\n')
			continue
		}
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		last = data
		if bytes.Contains(data, []byte(delta)) {
			if n := bytes.Count(data, []byte("abcde")); n > 0 {
				words += n
				deltas++
			}
		}
	}
	if !ended(events, last) {
		return fmt.Errorf("a stream without its end: %.300s", tail(body))
	}
	if req.header != nil && (words != l.words || deltas < l.words) {
		return fmt.Errorf("an answer of another shape (%d words in %d deltas): %.300s", words, deltas, body)
	}
	return nil
}

// tail is the last 300 bytes of b.
func tail(b []byte) []byte { return b[max(0, len(b)-300):] }
