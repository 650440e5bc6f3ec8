package scenario

import "strings"

// Closest returns the name among known that word most likely misspells —
// one edit away, two for names longer than five letters, ignoring case —
// or "" when none is that close. Messages use it to ask "did you mean ...?".
func Closest(word string, known []string) string {
	best, bestDist := "", 3
	w := strings.ToLower(word)
	for _, k := range known {
		d := editDistance(w, strings.ToLower(k))
		limit := 1
		if len(k) > 5 {
			limit = 2 // short words are too easily "close" to anything
		}
		if d <= limit && d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
