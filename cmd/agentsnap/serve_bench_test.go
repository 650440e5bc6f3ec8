//go:build unix

// The benchmark stops serve with SIGINT and reads /proc: unix only.

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentsnap/agentsnap/internal/aimock"
)

// BenchmarkServeAimock runs agentsnap serve, aimock (the npm package
// @copilotkit/aimock, installed by npm ci --prefix internal/aimock) and the
// floor (testdata/servefloor: net/http writing the same frames, made in
// advance, in one flush) side by side, each round starting each afresh, in
// turn first, and sending each the same load: 8 concurrent streams of Chat
// Completions calls from many short sessions — a root that in each of 84
// turns spawns 24 children (Agentsnap-* headers), each child one streamed
// answer of 60 words (63 frames; aimock cuts the same text into the same
// 60 deltas), then the root's call with their results: 2,184 requests,
// 2,017 sessions. It reports each side's requests/s, p50 and p99 latency
// (request sent to last byte read), peak RSS of its process while serving
// (VmHWM), CPU per request and start-up time (exec to its URL line, or for
// aimock to its port answering), medians over the rounds, and the ratios
// agentsnap/aimock and agentsnap/floor; for agentsnap also the peak RSS
// over its whole life (VmHWM read until it exits: the verdict after SIGINT
// included), its ratio to aimock's peak, and the time from SIGINT to exit. serve must exit 0: the replay matched its
// recording.
//
//	npm ci --prefix internal/aimock
//	go test -run '^$' -bench ServeAimock -benchtime 5x ./cmd/agentsnap
func BenchmarkServeAimock(b *testing.B) {
	bin := aimockBin(b)
	load := serveLoad{turns: 84, children: 24, words: 60, streams: 8}
	dir := b.TempDir()
	fx, mockFile := load.prepare(b, dir)
	agentsnapBin := goBuild(b, dir, "agentsnap", ".")
	floorBin := goBuild(b, dir, "servefloor", "./testdata/servefloor")
	var snap, mock, floor []serveRound
	for i := 0; b.Loop(); i++ {
		// Each side goes first, second and third in turn.
		sides := []func(){
			func() { snap = append(snap, load.runServe(b, agentsnapBin, fx)) },
			func() { mock = append(mock, load.runAimock(b, bin, mockFile)) },
			func() { floor = append(floor, load.runFloor(b, floorBin)) },
		}
		for j := range sides {
			sides[(i+j)%len(sides)]()
		}
	}
	s, m, f := medianRound(snap), medianRound(mock), medianRound(floor)
	for _, side := range []struct {
		name string
		r    serveRound
	}{{"agentsnap", s}, {"aimock", m}, {"floor", f}} {
		load.reportSide(b, side.name, side.r)
	}
	reportVsAimock(b, s, m)
	b.ReportMetric(s.rps/f.rps, "agentsnap/floor-req/s")
	b.ReportMetric(s.p99.Seconds()/f.p99.Seconds(), "agentsnap/floor-p99")
	b.ReportMetric(s.cpu.Seconds()/f.cpu.Seconds(), "agentsnap/floor-CPU")
	b.ReportMetric(s.rss/f.rss, "agentsnap/floor-RSS")
	b.ReportMetric(0, "ns/op")
}

// aimockBin returns aimock's executable, or skips b when npm has not
// installed it (fails b when CI requires it).
func aimockBin(b *testing.B) string {
	bin, err := aimock.Bin()
	if err != nil {
		if aimock.Required() {
			b.Fatal(err)
		}
		b.Skip(err)
	}
	return bin
}

// goBuild builds the package pkg as dir/name and returns its path.
func goBuild(b *testing.B, dir, name, pkg string) string {
	out := filepath.Join(dir, name)
	if msg, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", pkg, err, msg)
	}
	return out
}

// prepare records the load into a fixture under dir and writes aimock's
// fixtures of it, and returns both paths.
func (l serveLoad) prepare(b *testing.B, dir string) (fx, mockFile string) {
	fx, mockFile = filepath.Join(dir, "fixture"), filepath.Join(dir, "aimock.json")
	if err := l.record(fx); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(mockFile, l.aimockFixtures(), 0o644); err != nil {
		b.Fatal(err)
	}
	return fx, mockFile
}

// reportSide reports one side's figures, named after it.
func (l serveLoad) reportSide(b *testing.B, name string, r serveRound) {
	b.ReportMetric(r.rps, "req/s-"+name)
	b.ReportMetric(r.p50.Seconds()*1e3, "p50-ms-"+name)
	b.ReportMetric(r.p99.Seconds()*1e3, "p99-ms-"+name)
	b.ReportMetric(r.rss/(1<<20), "MiB-peak-RSS-"+name)
	b.ReportMetric(r.cpu.Seconds()*1e6/float64(l.requests()), "CPU-µs/req-"+name)
	b.ReportMetric(r.startup.Seconds()*1e3, "startup-ms-"+name)
}

// reportVsAimock reports agentsnap's whole-life figures and its ratios
// to aimock's.
func reportVsAimock(b *testing.B, s, m serveRound) {
	b.ReportMetric(s.lifeRSS/(1<<20), "MiB-life-RSS-agentsnap")
	b.ReportMetric(s.lifeRSS/m.rss, "agentsnap/aimock-life-RSS")
	b.ReportMetric(s.exit.Seconds()*1e3, "exit-ms-agentsnap")
	b.ReportMetric(s.rps/m.rps, "agentsnap/aimock-req/s")
	b.ReportMetric(s.p99.Seconds()/m.p99.Seconds(), "agentsnap/aimock-p99")
	b.ReportMetric(s.rss/m.rss, "agentsnap/aimock-RSS")
	b.ReportMetric(s.startup.Seconds()/m.startup.Seconds(), "agentsnap/aimock-startup")
}

// serveRound is what one side cost in one round.
type serveRound struct {
	rps, rss, lifeRSS  float64
	p50, p99           time.Duration
	cpu, startup, exit time.Duration
}

// medianRound takes the median of each figure over the rounds.
func medianRound(rs []serveRound) serveRound {
	med := func(f func(serveRound) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	dur := func(f func(serveRound) time.Duration) time.Duration {
		return time.Duration(med(func(r serveRound) float64 { return float64(f(r)) }))
	}
	return serveRound{
		rps: med(func(r serveRound) float64 { return r.rps }), rss: med(func(r serveRound) float64 { return r.rss }),
		lifeRSS: med(func(r serveRound) float64 { return r.lifeRSS }),
		p50:     dur(func(r serveRound) time.Duration { return r.p50 }), p99: dur(func(r serveRound) time.Duration { return r.p99 }),
		cpu: dur(func(r serveRound) time.Duration { return r.cpu }), startup: dur(func(r serveRound) time.Duration { return r.startup }),
		exit: dur(func(r serveRound) time.Duration { return r.exit }),
	}
}

// runServe starts agentsnap serve on the fixture, sends the load, stops it
// with SIGINT and checks its verdict.
func (l serveLoad) runServe(b *testing.B, bin, fx string) serveRound {
	start := time.Now()
	cmd := exec.Command(bin, "serve", fx)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	br := bufio.NewReader(stdout)
	line, err := br.ReadString('\n')
	if err != nil {
		_ = cmd.Process.Kill()
		b.Fatalf("serve printed no URL line: %v\n%s", err, stderr.String())
	}
	var rest bytes.Buffer
	copied := make(chan struct{})
	go func() { _, _ = io.Copy(&rest, br); close(copied) }()
	r := serveRound{startup: time.Since(start)}
	lat, wall, err := l.run(strings.TrimSpace(line), l.checkAnswer)
	if err != nil {
		_ = cmd.Process.Kill()
		b.Fatalf("agentsnap: %v\n%s", err, stderr.String())
	}
	l.measure(&r, cmd.Process.Pid, lat, wall)
	sent := time.Now()
	_ = cmd.Process.Signal(os.Interrupt)
	exited, life := make(chan struct{}), make(chan float64)
	go func() { life <- highWaterUntil(cmd.Process.Pid, exited) }()
	<-copied
	err = cmd.Wait()
	r.exit = time.Since(sent)
	close(exited)
	r.lifeRSS = max(<-life, r.rss)
	if err != nil {
		b.Fatalf("agentsnap serve: %v\n%s%s", err, rest.String(), stderr.String())
	}
	return r
}

// highWaterUntil reads the process's peak RSS (VmHWM) every millisecond
// until exited is closed, and returns the last it read: its peak over its
// life but for its last moments. The rusage of the process once it exited
// is no measure of it: Go starts a child from a vfork that shares the
// parent's memory, and Linux counts that memory's high water — this
// benchmark's own, which recorded the fixture — in the child's maxrss.
func highWaterUntil(pid int, exited <-chan struct{}) float64 {
	var peak float64
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		peak = max(peak, highWater(pid)) // 0 once the process is gone
		select {
		case <-exited:
			return peak
		case <-tick.C:
		}
	}
}

// highWater is the process's peak RSS so far (VmHWM), or 0.
func highWater(pid int) float64 {
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb * 1024
		}
	}
	return 0
}

// runAimock starts aimock on the fixture file, sends the load and stops it.
func (l serveLoad) runAimock(b *testing.B, bin, fixtures string) serveRound {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	start := time.Now()
	cmd := exec.Command(bin, "--host", "127.0.0.1", "--port", port, "--fixtures", fixtures, "--log-level", "warn", "--chunk-size", "6")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Since(start) > 30*time.Second {
			b.Fatalf("aimock did not listen within 30 s: %s", out.String())
		}
		time.Sleep(time.Millisecond) // polling a port another process opens: no signal to wait on
	}
	r := serveRound{startup: time.Since(start)}
	lat, wall, err := l.run("http://"+addr+"/v1", l.checkAnswer)
	if err != nil {
		b.Fatalf("aimock: %v\n%s", err, out.String())
	}
	l.measure(&r, cmd.Process.Pid, lat, wall)
	return r
}

// runFloor starts the floor (testdata/servefloor), sends the load and
// kills it.
func (l serveLoad) runFloor(b *testing.B, bin string) serveRound {
	start := time.Now()
	cmd := exec.Command(bin, strconv.Itoa(l.words), strconv.Itoa(l.children))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("the floor printed no URL line: %v\n%s", err, stderr.String())
	}
	r := serveRound{startup: time.Since(start)}
	lat, wall, err := l.run(strings.TrimSpace(line), l.checkAnswer)
	if err != nil {
		b.Fatalf("floor: %v\n%s", err, stderr.String())
	}
	l.measure(&r, cmd.Process.Pid, lat, wall)
	return r
}

// measure fills the load's figures: requests/s, latency percentiles, and
// from /proc the process's peak RSS and CPU time so far.
func (l serveLoad) measure(r *serveRound, pid int, lat []time.Duration, wall time.Duration) {
	sorted := slices.Clone(lat)
	slices.Sort(sorted)
	r.p50 = sorted[len(sorted)/2]
	r.p99 = sorted[len(sorted)*99/100]
	r.rss = highWater(pid)
	stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if i := bytes.LastIndexByte(stat, ')'); i > 0 {
		f := strings.Fields(string(stat[i+2:]))
		if len(f) > 13 {
			u, _ := strconv.ParseFloat(f[11], 64)
			s, _ := strconv.ParseFloat(f[12], 64)
			r.cpu = time.Duration((u + s) / 100 * float64(time.Second)) // clock ticks: 100 per second on Linux
		}
	}
	r.rps = float64(len(lat)) / wall.Seconds()
}
