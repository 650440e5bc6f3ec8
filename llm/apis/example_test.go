package apis_test

import (
	"fmt"

	"github.com/agentsnap/agentsnap/llm/apis"
)

// ExampleLookup finds an API by the name --api takes, or an alias, and
// reads its key the way a live recording does: the first of its KeyVars
// that is set.
func ExampleLookup() {
	a, err := apis.Lookup("claude")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Name, "—", a.Title, "— recorded as provider", apis.Provider(a))
	fmt.Println("key from:", a.KeyVars)
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-ant-example"}
	_, from := a.KeyFromEnv(func(v string) string { return env[v] })
	fmt.Println("key found in", from)

	chat, _ := apis.Lookup("") // none named: the default
	fmt.Println(chat.Name, "— recorded as provider", apis.Provider(chat))
	// Output:
	// anthropic-messages — Anthropic Messages — recorded as provider anthropic-messages
	// key from: [AGENTSNAP_API_KEY ANTHROPIC_API_KEY]
	// key found in ANTHROPIC_API_KEY
	// openai-chat — recorded as provider openai-compatible
}

// ExampleNames shows the names a flag takes, and the error of a name it
// does not.
func ExampleNames() {
	fmt.Println(apis.Names())
	_, err := apis.Lookup("bard")
	fmt.Println(err)
	// Output:
	// openai-chat (chat, openai), openai-responses (responses), anthropic-messages (anthropic, claude), gemini (google)
	// apis: unknown model API "bard"; want one of openai-chat (chat, openai), openai-responses (responses), anthropic-messages (anthropic, claude), gemini (google)
}
