package budget_test

import (
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/budget"
	"github.com/agentsnap/agentsnap/session"
)

// Count a recorded tree's tokens, price them, and bound them.
func Example() {
	logs, err := session.ReadFolder("../fixtures/billing/refund-flow")
	if err != nil {
		panic(err)
	}
	u, err := budget.Of(logs)
	if err != nil {
		panic(err)
	}
	prices := budget.Prices{"playbook": {Input: 0.15, Output: 0.6}}
	fmt.Println(u.Session("root/call_draft").Tokens)
	fmt.Println(strings.Join(u.Table(prices), "\n"))
	fmt.Println(u.Check(budget.Limit{Tokens: 1000, Prices: prices}))
	// Output:
	// 121 tokens (83 input, 38 output)
	// session          calls  input  cache read  output  reasoning  total        cost
	// root                 3    828           0     249          0   1077   0.0002736
	// root/call_draft      1     83           0      38          0    121  0.00003525
	// tree                 4    911           0     287          0   1198  0.00030885
	// budget: the tree used 1198 tokens, over the limit of 1000
}
