//go:build unix

package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkServeInProcess runs serve's replay in this process on the load
// of BenchmarkServeAimock, so go test -cpuprofile and -memprofile see
// serve's own costs: each iteration starts serve, sends the load, stops
// serve and waits for its verdict, which must pass. It reports requests/s
// and the median time from the stop to serve's return (its verdict).
//
//	go test -run '^$' -bench ServeInProcess -benchtime 3x -cpuprofile cpu.out -memprofile mem.out ./cmd/agentsnap
func BenchmarkServeInProcess(b *testing.B) {
	load := serveLoad{turns: 84, children: 24, words: 60, streams: 8}
	fx := filepath.Join(b.TempDir(), "fixture")
	if err := load.record(fx); err != nil {
		b.Fatal(err)
	}
	var exits []time.Duration
	for b.Loop() {
		ctx, stop := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		var errb strings.Builder
		e := &env{stdout: pw, stderr: &errb, getenv: func(string) string { return "" }}
		code := make(chan int, 1)
		go func() { code <- runServe(ctx, e, []string{fx}); pw.Close() }()
		br := bufio.NewReader(pr)
		line, err := br.ReadString('\n')
		if err != nil {
			b.Fatalf("serve printed no URL line: %v\n%s", err, errb.String())
		}
		rest := make(chan string, 1)
		go func() { s, _ := io.ReadAll(br); rest <- string(s) }()
		if _, _, err := load.run(strings.TrimSpace(line), load.checkAnswer); err != nil {
			b.Fatal(err)
		}
		if p := os.Getenv("SERVE_HEAP"); p != "" {
			runtime.GC()
			f, _ := os.Create(p)
			_ = pprof.WriteHeapProfile(f)
			f.Close()
		}
		stopped := time.Now()
		stop()
		c := <-code
		exits = append(exits, time.Since(stopped))
		if c != exitOK {
			b.Fatalf("serve exited %d:\n%s%s", c, <-rest, errb.String())
		}
		<-rest
	}
	b.ReportMetric(float64(load.requests())*float64(b.N)/b.Elapsed().Seconds(), "req/s")
	slices.Sort(exits)
	b.ReportMetric(float64(exits[len(exits)/2].Microseconds())/1e3, "exit-ms")
}
