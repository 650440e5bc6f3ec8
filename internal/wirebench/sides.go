package wirebench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime/metrics"
	"slices"
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

	nanos, allocs, bytes []float64
}

// NewSide makes a side of a peer from a recording, for Bench.
type NewSide func(tb TB, rec *Recording) Side

// Wire replays the recording as agentsnap does: fakellm from the recorded
// logs, a wire handler writing every log to a memory store.
func Wire(_ TB, rec *Recording) Side {
	return Side{Name: "wire", Run: func(tb TB) func(TB) {
		drv, err := fakellm.New(rec.Logs)
		if err != nil {
			tb.Fatal(err)
		}
		clock := time.UnixMilli(946684800000)
		h, err := wire.NewHandler(wire.Config{Driver: drv, Store: memory.New(), Provider: "bench", Clock: func() time.Time { return clock }})
		if err != nil {
			tb.Fatal(err)
		}
		RunAgent(tb, &http.Client{Transport: wire.Transport(h)}, rec.Prompts)
		return func(tb TB) {
			if err := h.Close(context.Background()); err != nil {
				tb.Fatal(err)
			}
			if err := drv.Check(); err != nil {
				tb.Fatal(err)
			}
		}
	}}
}

// HTTPRR serves each call as httprr does: the request as written on the
// wire is the key of a map, its answer an HTTP response read back with
// http.ReadResponse.
func HTTPRR(_ TB, rec *Recording) Side {
	rt := RoundTripFunc(func(r *http.Request) (*http.Response, error) {
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
	return Side{Name: "httprr", Run: func(tb TB) func(TB) {
		RunAgent(tb, &http.Client{Transport: rt}, rec.Prompts)
		return func(TB) {}
	}}
}

// Floor hands the recorded answers back in call order, the request read
// and dropped: what the SDK costs by itself.
func Floor(_ TB, rec *Recording) Side {
	return Side{Name: "floor", Run: func(tb TB) func(TB) {
		RunAgent(tb, &http.Client{Transport: rec.InOrder()}, rec.Prompts)
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

// Bench records the agent at 4, 16 and 64 turns (20, 80, 320 calls; the
// last request of 64 turns sends 641 messages) and replays each recording
// on wire, httprr, every side of more, and the floor, in alternating
// order each round. It reports each side's median time, allocations and
// bytes per call, wire's ratios to every other side but the floor, and
// wire's cost above the floor (how its cost per call grows with the
// conversation).
func Bench(b *testing.B, more ...NewSide) {
	for _, turns := range []int{4, 16, 64} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			rec := Record(b, turns)
			var sides []Side
			for _, side := range append(append([]NewSide{Wire, HTTPRR}, more...), Floor) {
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

// Alone replays the recordings of 4 and 64 turns on side alone, for a
// profile of its own cost, and reports its median time and allocations
// per call.
func Alone(b *testing.B, side NewSide) {
	for _, turns := range []int{4, 64} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			rec := Record(b, turns)
			s := side(b, rec)
			for b.Loop() {
				s.measure(b)
			}
			calls := float64(len(rec.Calls))
			b.ReportMetric(median(s.nanos)/calls/1e3, "µs/call")
			b.ReportMetric(median(s.allocs)/calls, "allocs/call")
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
	}
	w, f := &sides[0], &sides[len(sides)-1]
	for _, s := range sides[1 : len(sides)-1] {
		b.ReportMetric(median(w.nanos)/median(s.nanos), "wire/"+s.Name+"-time")
		b.ReportMetric(median(w.allocs)/median(s.allocs), "wire/"+s.Name+"-allocs")
	}
	b.ReportMetric((median(w.nanos)-median(f.nanos))/calls/1e3, "µs/call-above-floor")
	b.ReportMetric(0, "ns/op")
}

// samples count allocations as testing's -benchmem does: small objects
// and tiny ones.
var samples = []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/tiny/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}}

// measure runs the agent once on this side and keeps its cost.
func (s *Side) measure(tb TB) {
	if s.Prepare != nil {
		s.Prepare(tb)
	}
	metrics.Read(samples)
	objs, byts := samples[0].Value.Uint64()+samples[1].Value.Uint64(), samples[2].Value.Uint64()
	start := time.Now()
	s.Run(tb)(tb)
	d := time.Since(start)
	metrics.Read(samples)
	s.nanos = append(s.nanos, float64(d.Nanoseconds()))
	s.allocs = append(s.allocs, float64(samples[0].Value.Uint64()+samples[1].Value.Uint64()-objs))
	s.bytes = append(s.bytes, float64(samples[2].Value.Uint64()-byts))
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
