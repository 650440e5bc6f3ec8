package wirebench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/wire"
)

// Side is one way of replaying a Recording, and what each round of it
// cost.
type Side struct {
	Name string
	// Prepare, when set, readies a round before its cost is counted (a
	// cassette read from disk, say: what a test pays once, not per call).
	Prepare func(tb TB)
	// Run replays the recording's prompts once, counted, and returns what
	// ends the round, counted too.
	Run func(tb TB) (done func(TB))

	nanos, allocs, bytes, cpu []float64
}

// NewSide makes a side of a peer from a recording, for Bench.
type NewSide func(tb TB, rec *Recording) Side

// Wire replays the recording as agentsnap does: fakellm serving the
// scripts of the recorded logs, a wire handler writing every log to a
// memory store. The scripts are derived once, before any round, as
// httprr's map is built and go-vcr's cassette read before theirs: each
// peer's reading of its recording is outside the timer.
func Wire(tb TB, rec *Recording) Side {
	r := newReplayer(tb, rec)
	return Side{Name: "wire", Run: func(tb TB) func(TB) {
		client, done := r.start(tb)
		rec.Agent(tb, client, rec.Prompts)
		return done
	}}
}

// Direct replays the recording through the wire with no SDK: each
// recorded request sent as it crossed the wire, its answer read whole —
// what the wire itself costs per call, from the request's bytes to the
// answer's, its logs written and the replay checked.
func Direct(tb TB, rec *Recording) Side {
	r := newReplayer(tb, rec)
	reqs := make([]*http.Request, len(rec.Calls))
	bodies := make([][]byte, len(rec.Calls))
	for i, c := range rec.Calls {
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(c.Key)))
		if err != nil {
			tb.Fatal(err)
		}
		if bodies[i], err = io.ReadAll(req.Body); err != nil {
			tb.Fatal(err)
		}
		req.RequestURI, req.URL.Scheme, req.URL.Host = "", "http", req.Host
		reqs[i] = req
	}
	buf := make([]byte, 32<<10)
	return Side{Name: "direct", Run: func(tb TB) func(TB) {
		client, done := r.start(tb)
		for i, req := range reqs {
			req.Body = io.NopCloser(bytes.NewReader(bodies[i]))
			resp, err := client.Do(req)
			if err != nil {
				tb.Fatal(err)
			}
			for err == nil {
				_, err = resp.Body.Read(buf)
			}
			resp.Body.Close()
			if err != io.EOF || resp.StatusCode != http.StatusOK {
				tb.Fatalf("call %d: status %d, body read: %v", i+1, resp.StatusCode, err)
			}
		}
		return done
	}}
}

// replayer replays a recording through the wire, a round at a time.
type replayer struct{ scripts *fakellm.Recording }

func newReplayer(tb TB, rec *Recording) *replayer {
	scripts, err := fakellm.Prepare(rec.Logs)
	if err != nil {
		tb.Fatal(err)
	}
	return &replayer{scripts: scripts}
}

// start readies a round: a replay driver and a wire handler writing to a
// memory store, and an HTTP client whose calls it serves. done ends the
// round, checking that the replay consumed the recording.
func (r *replayer) start(tb TB) (client *http.Client, done func(TB)) {
	drv, err := r.scripts.Driver()
	if err != nil {
		tb.Fatal(err)
	}
	clock := time.UnixMilli(946684800000)
	h, err := wire.NewHandler(wire.Config{Driver: drv, Store: memory.New(), Provider: "bench", Clock: func() time.Time { return clock }})
	if err != nil {
		tb.Fatal(err)
	}
	client = &http.Client{Transport: wire.Transport(h)}
	return client, func(tb TB) {
		client.CloseIdleConnections()
		if err := h.Close(context.Background()); err != nil {
			tb.Fatal(err)
		}
		if err := drv.Check(); err != nil {
			tb.Fatal(err)
		}
	}
}

// HTTPRR serves each call as httprr does: the request as written on the
// wire is the key of a map, its answer an HTTP response read back with
// http.ReadResponse.
func HTTPRR(_ TB, rec *Recording) Side {
	rt := rec.httprr()
	return Side{Name: "httprr", Run: func(tb TB) func(TB) {
		rec.Agent(tb, &http.Client{Transport: rt}, rec.Prompts)
		return func(TB) {}
	}}
}

// httprr is HTTPRR's transport.
func (rec *Recording) httprr() http.RoundTripper {
	return RoundTripFunc(func(r *http.Request) (*http.Response, error) {
		key, err := RequestKey(r)
		if err != nil {
			return nil, err
		}
		resp, ok := rec.byKey[key]
		if !ok {
			return nil, fmt.Errorf("httprr: no recorded response for %s %s", r.Method, r.URL)
		}
		return http.ReadResponse(bufio.NewReader(bytes.NewReader(resp)), r)
	})
}

// Hop hands the recorded answers back in call order through
// wire.Transport, with no wire handler: what the in-process hop costs by
// itself (a server goroutine, the body streamed to the agent). wire's time
// above it is its handler's (reading the request, checking it against the
// recording, serving the script, writing the log) less the hand-over to
// the server goroutine, which a wire replay that never waits does not make
// (wire.Transport serves it on the agent's goroutine).
func Hop(_ TB, rec *Recording) Side {
	return Side{Name: "hop", Run: func(tb TB) func(TB) {
		client := &http.Client{Transport: wire.Transport(rec.inOrderHandler())}
		rec.Agent(tb, client, rec.Prompts)
		return func(TB) { client.CloseIdleConnections() }
	}}
}

// inOrderHandler is InOrder as an http.Handler.
func (rec *Recording) inOrderHandler() http.Handler {
	rt := rec.InOrder()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := rt.RoundTrip(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer resp.Body.Close()
		h := w.Header()
		for k, v := range resp.Header {
			h[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	})
}

// Floor hands the recorded answers back in call order, the request read
// and dropped: what the SDK costs by itself.
func Floor(_ TB, rec *Recording) Side {
	return Side{Name: "floor", Run: func(tb TB) func(TB) {
		rec.Agent(tb, &http.Client{Transport: rec.InOrder()}, rec.Prompts)
		return func(TB) {}
	}}
}

// InOrder is a transport that answers the recording's calls in call order
// whatever is asked.
func (rec *Recording) InOrder() http.RoundTripper {
	n := 0
	return RoundTripFunc(func(r *http.Request) (*http.Response, error) {
		_, _ = io.Copy(io.Discard, r.Body)
		r.Body.Close()
		if n == len(rec.Calls) {
			return nil, fmt.Errorf("wirebench: the agent made call %d, and the recording holds %d: replay the prompts it was recorded with (Recording.Prompts), or Record again", n+1, len(rec.Calls))
		}
		c := rec.Calls[n]
		n++
		return &http.Response{StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: c.Header, Body: io.NopCloser(bytes.NewReader(c.Body)), ContentLength: int64(len(c.Body)), Request: r}, nil
	})
}

// RoundTripFunc is an http.RoundTripper of a function.
type RoundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip calls f.
func (f RoundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Bench is BenchAgent of the OpenAI Chat Completions agent (RunAgent).
func Bench(b *testing.B, more ...NewSide) { BenchAgent(b, RunAgent, more...) }

// BenchAgent records agent at 4, 16 and 64 turns (20, 80, 320 calls; the
// last request of 64 turns sends 641 messages, when the agent sends the
// whole conversation) and replays each recording on wire, httprr, hop,
// every side of more, and the floor, in alternating order each round. It
// reports each side's median time, allocations and bytes per call, wire's
// ratios to every other side but the floor (for time, the median of each
// round's ratio: see medianRatio), wire's cost above the floor (how its
// cost per call grows with the conversation) and above hop (its handler's
// cost in the agent's company, less the hand-over hop makes; see Hop;
// BenchmarkWireAlone measures the handler alone).
func BenchAgent(b *testing.B, agent Agent, more ...NewSide) {
	for _, turns := range []int{4, 16, 64} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			rec := RecordAgent(b, agent, turns)
			var sides []Side
			for _, side := range append(append([]NewSide{Wire, HTTPRR, Hop}, more...), Floor) {
				sides = append(sides, side(b, rec))
			}
			for i := 0; b.Loop(); i++ {
				for k := range sides {
					if i%2 == 1 {
						k = len(sides) - 1 - k
					}
					sides[k].measure(b)
				}
			}
			report(b, sides, float64(len(rec.Calls)))
		})
	}
}

// Alone replays the recordings of 4, 16 and 64 turns on side alone, for
// a profile of its own cost, and reports its median time, CPU time,
// allocations and bytes per call.
func Alone(b *testing.B, side NewSide) {
	for _, turns := range []int{4, 16, 64} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			rec := Record(b, turns)
			s := side(b, rec)
			for b.Loop() {
				s.measure(b)
			}
			calls := float64(len(rec.Calls))
			b.ReportMetric(median(s.nanos)/calls/1e3, "µs/call")
			b.ReportMetric(median(s.cpu)/calls/1e3, "cpu-µs/call")
			b.ReportMetric(median(s.allocs)/calls, "allocs/call")
			b.ReportMetric(median(s.bytes)/calls, "B/call")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// report reports the medians of sides, wire's first and the floor's last.
func report(b *testing.B, sides []Side, calls float64) {
	for _, s := range sides {
		b.ReportMetric(median(s.nanos)/calls/1e3, "µs/call-"+s.Name)
		b.ReportMetric(median(s.allocs)/calls, "allocs/call-"+s.Name)
		b.ReportMetric(median(s.bytes)/calls, "B/call-"+s.Name)
		b.ReportMetric(median(s.cpu)/calls/1e3, "cpu-µs/call-"+s.Name)
	}
	w, f := &sides[0], &sides[len(sides)-1]
	for _, s := range sides[1 : len(sides)-1] {
		b.ReportMetric(medianRatio(w.nanos, s.nanos), "wire/"+s.Name+"-time")
		b.ReportMetric(median(w.allocs)/median(s.allocs), "wire/"+s.Name+"-allocs")
	}
	b.ReportMetric((median(w.nanos)-median(f.nanos))/calls/1e3, "µs/call-above-floor")
	for _, s := range sides {
		if s.Name == "hop" { // the wire handler in the agent's company (see Hop)
			b.ReportMetric(medianDiff(w.nanos, s.nanos)/calls/1e3, "µs/call-handler")
		}
	}
	b.ReportMetric(0, "ns/op")
}

// measure runs the agent once on this side and keeps its cost. It counts
// allocations as testing's -benchmem does, with runtime.ReadMemStats:
// runtime/metrics counts an object only once the span it came from leaves
// its processor's cache, so a count read from it misses up to a span of
// objects per size class — thousands, on a run of a few thousand.
func (s *Side) measure(tb TB) {
	if s.Prepare != nil {
		s.Prepare(tb)
	}
	// Each side pays for its own garbage, not for the side before it.
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	c0 := cpuNow()
	start := time.Now()
	s.Run(tb)(tb)
	d := time.Since(start)
	s.cpu = append(s.cpu, cpuNow()-c0)
	runtime.ReadMemStats(&after)
	s.nanos = append(s.nanos, float64(d.Nanoseconds()))
	s.allocs = append(s.allocs, float64(after.Mallocs-before.Mallocs))
	s.bytes = append(s.bytes, float64(after.TotalAlloc-before.TotalAlloc))
}

// medianRatio is the median of a[i]/b[i]: the ratio of two sides' times
// measured in the same round, next to each other, so that a machine whose
// speed drifts during the run (a neighbour's load) moves both alike — the
// ratio of two medians taken over the whole run does not cancel it.
func medianRatio(a, b []float64) float64 {
	r := make([]float64, min(len(a), len(b)))
	for i := range r {
		r[i] = a[i] / b[i]
	}
	return median(r)
}

// medianDiff is the median of a[i]-b[i], paired by round as medianRatio.
func medianDiff(a, b []float64) float64 {
	d := make([]float64, min(len(a), len(b)))
	for i := range d {
		d[i] = a[i] - b[i]
	}
	return median(d)
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
