package wirebench

import (
	"fmt"
	"net/http"
	"runtime"
	"testing"
	"time"
)

// Split replays the recordings of 4, 16 and 64 turns on wire and on
// httprr, in alternating order each round, and times their transports'
// round trips apart from the agent's own work: the first call, the mean
// of the later ones and, for wire, the replay's start (driver, handler,
// store) and end (Close, the driver's check). It tells what of wire's
// cost above httprr's a run pays once and what every call pays.
func Split(b *testing.B) {
	for _, turns := range []int{4, 16, 64} {
		b.Run(fmt.Sprintf("turns=%d", turns), func(b *testing.B) {
			rec := Record(b, turns)
			r := newReplayer(b, rec)
			var w, h split
			for i := 0; b.Loop(); i++ {
				if i%2 == 1 {
					h.run(b, rec, nil)
				}
				w.run(b, rec, r)
				if i%2 == 0 {
					h.run(b, rec, nil)
				}
			}
			for _, s := range []struct {
				name string
				*split
			}{{"wire", &w}, {"httprr", &h}} {
				b.ReportMetric(median(s.first)/1e3, "µs-first-call-"+s.name)
				b.ReportMetric(median(s.later)/1e3, "µs/later-call-"+s.name)
			}
			b.ReportMetric(median(w.start)/1e3, "µs-start-wire")
			b.ReportMetric(median(w.end)/1e3, "µs-end-wire")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// split is one side's round trips, a run each: the first call's, the
// mean of the later calls', and the replay's start and end.
type split struct{ first, later, start, end []float64 }

// run replays rec once, on wire through r, or on httprr when r is nil.
func (s *split) run(tb TB, rec *Recording, r *replayer) {
	runtime.GC()
	t0 := time.Now()
	var next http.RoundTripper = rec.httprr()
	done := func(TB) {}
	if r != nil {
		var client *http.Client
		client, done = r.start(tb)
		next = client.Transport
	}
	started := time.Since(t0)
	times := make([]time.Duration, 0, len(rec.Calls))
	timed := RoundTripFunc(func(q *http.Request) (*http.Response, error) {
		t := time.Now()
		resp, err := next.RoundTrip(q)
		times = append(times, time.Since(t))
		return resp, err
	})
	rec.Agent(tb, &http.Client{Transport: timed}, rec.Prompts)
	t1 := time.Now()
	done(tb)
	var later time.Duration
	for _, t := range times[1:] {
		later += t
	}
	s.first = append(s.first, float64(times[0]))
	s.later = append(s.later, float64(later)/float64(len(times)-1))
	s.start = append(s.start, float64(started))
	s.end = append(s.end, float64(time.Since(t1)))
}
