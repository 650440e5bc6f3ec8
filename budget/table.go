package budget

import (
	"strconv"

	"github.com/agentsnap/agentsnap/internal/columns"
)

// Table lays the usage out as aligned lines: a header, one row per session
// in lineage order, and the tree's total. A cost column is added when
// prices are given ("?" for a session with an unpriced model; Usage.Cost
// says which), and an unreported column when a call records no usage.
func (u *Usage) Table(prices Prices) []string {
	header := []string{"session", "calls", "input", "cache read", "output", "reasoning", "total"}
	unreported := u.Unreported() > 0
	if unreported {
		header = append(header, "unreported")
	}
	if prices != nil {
		header = append(header, "cost")
	}
	rows := [][]string{header}
	row := func(name string, calls, unrep int, t Tokens, cost func() (float64, error)) {
		r := []string{name, strconv.Itoa(calls), strconv.Itoa(t.Input), strconv.Itoa(t.CacheRead), strconv.Itoa(t.Output), strconv.Itoa(t.Reasoning), strconv.Itoa(t.Total())}
		if unreported {
			r = append(r, strconv.Itoa(unrep))
		}
		if prices != nil {
			c := "?"
			if x, err := cost(); err == nil {
				c = FormatCost(x)
			}
			r = append(r, c)
		}
		rows = append(rows, r)
	}
	for _, s := range u.Sessions {
		row(s.Path, len(s.Calls), s.Unreported(), s.Tokens, func() (float64, error) { return s.Cost(prices) })
	}
	row("tree", u.Calls(), u.Unreported(), u.Tokens, func() (float64, error) { return u.Cost(prices) })
	return align(rows)
}

// align pads the first column on the right and the numbers on the left.
func align(rows [][]string) []string {
	right := make([]int, 0, len(rows[0]))
	for i := 1; i < len(rows[0]); i++ {
		right = append(right, i)
	}
	return columns.Align(rows, right...)
}
