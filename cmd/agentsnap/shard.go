package main

import (
	"fmt"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/english"
)

// shard is the part of the scenarios one CI job checks: shard k of n, or
// every scenario when n is 0.
type shard struct{ k, n int }

// parseShardFlag parses --shard K/N; "" is every scenario.
func parseShardFlag(s string) (shard, error) {
	if s == "" {
		return shard{}, nil
	}
	k, n, err := fixture.ParseShard(s)
	return shard{k, n}, err
}

// filter keeps the scenario folders of the shard (fixture.InShard of
// CATEGORY/NAME), in their order. A shard that holds none of them is
// legitimate — N jobs over fewer scenarios — and none says so.
func (s shard) filter(dirs []string) (out []string, none string) {
	if s.n == 0 {
		return dirs, ""
	}
	for _, d := range dirs {
		if fixture.InShard(fixture.Name(d), s.k, s.n) {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		none = fmt.Sprintf("shard %d/%d holds none of the %s", s.k, s.n, english.Count(len(dirs), "scenario"))
	}
	return out, none
}
