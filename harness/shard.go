package harness

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// InShard reports whether the scenario named name (CATEGORY/NAME) belongs
// to shard k of n, 1 <= k <= n: the 32-bit FNV-1a hash of the name, mod n,
// is k-1. The split depends on the name alone, so a scenario always lands
// in the same shard and adding or removing one moves no other. "agentsnap
// check --shard K/N" and the suites' AGENTSNAP_SHARD=K/N both use it. It
// reports false for a k or n out of range.
func InShard(name string, k, n int) bool {
	if n < 1 || k < 1 || k > n {
		return false
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return int(h.Sum32()%uint32(n)) == k-1
}

// ParseShard parses a shard given as "K/N", 1 <= K <= N, such as "2/4".
func ParseShard(s string) (k, n int, err error) {
	ks, ns, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return 0, 0, fmt.Errorf("harness: shard %q: want K/N, such as 1/4 (shard 1 of 4)", s)
	}
	k, errK := strconv.Atoi(ks)
	n, errN := strconv.Atoi(ns)
	switch {
	case errK != nil || errN != nil:
		return 0, 0, fmt.Errorf("harness: shard %q: K and N must be whole numbers; want K/N, such as 1/4 (shard 1 of 4)", s)
	case n < 1:
		return 0, 0, fmt.Errorf("harness: shard %q: N must be at least 1; want K/N, such as 1/4 (shard 1 of 4)", s)
	case k < 1 || k > n:
		return 0, 0, fmt.Errorf("harness: shard %q: K must be between 1 and N (%d); want K/N, such as 1/4 (shard 1 of 4)", s, n)
	}
	return k, n, nil
}
