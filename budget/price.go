package budget

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Price is what a million tokens of one model cost, in the currency of the
// scenario's prices.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
	// CacheRead is the price of input tokens read from the provider's
	// cache; 0 charges them as Input.
	CacheRead float64 `json:"cacheRead,omitempty"`
}

// UnmarshalJSON reads a price and refuses unknown members and negative
// numbers, so a misspelled "cachedRead" does not silently cost nothing.
func (p *Price) UnmarshalJSON(b []byte) error {
	type plain Price
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var v plain
	if err := dec.Decode(&v); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) && typ.Field == "" {
			return fmt.Errorf(`want an object such as {"input": 0.15, "output": 0.6}, found JSON %s`, typ.Value)
		}
		if errors.As(err, &typ) {
			return fmt.Errorf("%s: want a number (per million tokens), found JSON %s", typ.Field, typ.Value)
		}
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fmt.Errorf("unknown member %s; a price has input, output and cacheRead (per million tokens)", name)
		}
		return err
	}
	for name, x := range map[string]float64{"input": v.Input, "output": v.Output, "cacheRead": v.CacheRead} {
		if x < 0 || math.IsInf(x, 0) {
			return fmt.Errorf("%s is %v; a price per million tokens is 0 or more", name, x)
		}
	}
	*p = Price(v)
	return nil
}

// Prices maps a model name, as request/header records it, to its price.
type Prices map[string]Price

// UnmarshalJSON reads the prices and names the model of a bad price.
func (p *Prices) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf(`want an object of prices per model, such as {"gpt-4o-mini": {"input": 0.15, "output": 0.6}}`)
	}
	out := make(Prices, len(raw))
	for _, model := range slices.Sorted(maps.Keys(raw)) {
		var price Price
		if err := json.Unmarshal(raw[model], &price); err != nil {
			return fmt.Errorf("model %q: %w", model, err)
		}
		out[model] = price
	}
	*p = out
	return nil
}

// ErrNoPrice is wrapped by the error of a cost that needs a model's price
// the prices lack.
var ErrNoPrice = errors.New("no price for the model")

// Cost returns what the call cost under p.
func (p Prices) Cost(c Call) (float64, error) {
	price, ok := p[c.Model]
	if !ok {
		if c.Model == "" {
			return 0, fmt.Errorf("%w: turn %d step %d has no request/header naming its model", ErrNoPrice, c.Turn, c.Step)
		}
		return 0, fmt.Errorf("%w %q (turn %d step %d); add it to scenario.json: \"prices\": {%q: {\"input\": ..., \"output\": ...}} (per million tokens); priced: %s",
			ErrNoPrice, c.Model, c.Turn, c.Step, c.Model, p.names())
	}
	cached := price.CacheRead
	if cached == 0 {
		cached = price.Input
	}
	t := c.Tokens
	return (float64(t.Input-t.CacheRead)*price.Input + float64(t.CacheRead)*cached + float64(t.Output)*price.Output) / 1e6, nil
}

func (p Prices) names() string {
	if len(p) == 0 {
		return "none"
	}
	return strings.Join(slices.Sorted(maps.Keys(p)), ", ")
}

// Cost returns what the session's calls cost under p.
func (s *Session) Cost(p Prices) (float64, error) {
	sum := 0.0
	for _, c := range s.Calls {
		x, err := p.Cost(c)
		if err != nil {
			return 0, fmt.Errorf("budget: session %s: %w", s.Path, err)
		}
		sum += x
	}
	return sum, nil
}

// Cost returns what the tree's calls cost under p.
func (u *Usage) Cost(p Prices) (float64, error) {
	sum := 0.0
	for _, s := range u.Sessions {
		x, err := s.Cost(p)
		if err != nil {
			return 0, err
		}
		sum += x
	}
	return sum, nil
}

// Limit bounds the usage of one agent tree. A zero member sets no bound.
type Limit struct {
	Tokens        int     // the tree's total tokens
	SessionTokens int     // any one session's own total tokens
	Cost          float64 // the tree's cost under Prices
	Prices        Prices  // for Cost and Growth; tree.WithinBudget defaults it to the scenario's
	// Baseline, when set, bounds growth: the tree may exceed the
	// baseline's cost (tokens when there are no Prices) by at most the
	// share Growth (0.2 is 20%; 0 allows no growth). See Compare.
	Baseline *Usage
	Growth   float64
}

// Check returns nil when u is within l, else one error listing every
// bound exceeded.
//
// Usage that could not be read (Usage.Unread) is a problem too: the counts
// may be short, so no bound can be said to hold.
func (u *Usage) Check(l Limit) error {
	var problems []string
	if un := u.Unread(); len(un) > 0 {
		problems = append(problems, fmt.Sprintf("%d event(s) that may hold usage could not be read, so the counts may be short: %s; repair the log or re-record the scenario", len(un), strings.Join(un, "; ")))
	}
	if l.Tokens > 0 && u.Tokens.Total() > l.Tokens {
		problems = append(problems, fmt.Sprintf("the tree used %d tokens, over the limit of %d", u.Tokens.Total(), l.Tokens))
	}
	if l.SessionTokens > 0 {
		for _, s := range u.Sessions {
			if s.Tokens.Total() > l.SessionTokens {
				problems = append(problems, fmt.Sprintf("session %s used %d tokens, over the per-session limit of %d", s.Path, s.Tokens.Total(), l.SessionTokens))
			}
		}
	}
	if l.Cost > 0 {
		cost, err := u.Cost(l.Prices)
		switch {
		case err != nil:
			problems = append(problems, "cost: "+strings.TrimPrefix(err.Error(), "budget: "))
		case cost > l.Cost:
			problems = append(problems, fmt.Sprintf("the tree cost %s, over the limit of %s", FormatCost(cost), FormatCost(l.Cost)))
		}
	}
	if l.Baseline != nil {
		g, err := Compare(l.Baseline, u, l.Prices)
		switch {
		case err != nil:
			problems = append(problems, "growth: "+strings.TrimPrefix(err.Error(), "budget: "))
		case g.Exceeds(l.Growth):
			problems = append(problems, g.String()+fmt.Sprintf(", more than the allowed %s", percent(l.Growth)))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("budget: %s", strings.Join(problems, "\nbudget: "))
}

// Growth compares a tree's total with a baseline's.
type Growth struct {
	Measure   string  // "cost" or "tokens"
	Base, Now float64 // the totals
	// Share is (Now-Base)/Base: 0.25 is 25% more; +Inf when Base is 0 and
	// Now is not.
	Share float64
}

// Compare measures how much now grew over base: by cost under prices when
// prices are given, else by total tokens. Both trees are priced alike, so a
// change of prices is not growth.
func Compare(base, now *Usage, prices Prices) (Growth, error) {
	g := Growth{Measure: "tokens", Base: float64(base.Tokens.Total()), Now: float64(now.Tokens.Total())}
	if len(prices) > 0 {
		g.Measure = "cost"
		var err error
		if g.Base, err = base.Cost(prices); err != nil {
			return g, fmt.Errorf("budget: the baseline: %w", err)
		}
		if g.Now, err = now.Cost(prices); err != nil {
			return g, err
		}
	}
	switch {
	case g.Base > 0:
		g.Share = (g.Now - g.Base) / g.Base
	case g.Now > 0:
		g.Share = math.Inf(1)
	}
	return g, nil
}

// Exceeds reports whether the growth is more than the share max; a
// difference within rounding (1e-9) is not.
func (g Growth) Exceeds(max float64) bool { return g.Share > max+1e-9 }

// String returns "the tree's tokens grew by 25.0% over the baseline
// (1000 -> 1250)".
func (g Growth) String() string {
	base, now := fmt.Sprint(g.Base), fmt.Sprint(g.Now)
	if g.Measure == "cost" {
		base, now = FormatCost(g.Base), FormatCost(g.Now)
	}
	verb := "grew by " + percent(g.Share)
	switch {
	case math.IsInf(g.Share, 1):
		verb = "grew from nothing"
	case g.Share < 0:
		verb = "shrank by " + percent(-g.Share)
	case g.Share == 0:
		verb = "did not grow"
	}
	return fmt.Sprintf("the tree's %s %s over the baseline (%s -> %s)", g.Measure, verb, base, now)
}

func percent(share float64) string { return fmt.Sprintf("%.1f%%", share*100) }

// FormatCost writes a cost with six significant digits and no exponent:
// token costs are small fractions of a currency unit.
func FormatCost(c float64) string {
	if c == 0 {
		return "0"
	}
	digits := max(0, 5-int(math.Floor(math.Log10(math.Abs(c)))))
	s := fmt.Sprintf("%.*f", digits, c)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
