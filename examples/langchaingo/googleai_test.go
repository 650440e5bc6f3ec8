//go:build googleai

package langchaingo_test

import (
	"context"

	"github.com/agentsnap/agentsnap/wire"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/googleai"
	"google.golang.org/api/option"
)

// The tool-loop desk on llms/googleai, built with -tags googleai only:
// googleai brings gRPC, protobuf and Google Cloud's client stack, some 260
// more packages to compile than the rest of this module's tests need, so
// CI leaves it out. The wire layer's specs replay langchaingo's googleai
// requests byte for byte on every run.

func init() {
	providers = append(providers, provider{"googleai", "testdata/googleai", geminiRuntime, geminiModel, "call_", "gemini"})
	// googleai.New also makes generative-ai-go's gRPC client for cached
	// contents, which connects in the background and which Close leaves
	// running: it retries for the rest of the process, reading
	// net.DefaultResolver on every attempt, so the no-socket spec must not
	// swap it. Its target is agentsnap's base URL, an address with no
	// port: no attempt gets as far as a lookup or a socket.
	trapResolver = false
}

// geminiModel is llms/googleai on agentsnap's client. googleai has no base
// URL option: the endpoint is the client option of google.golang.org/api
// that its Options hold. Its client (generative-ai-go) calls
// {endpoint}/v1beta/models/{model}:streamGenerateContent over REST with the
// HTTP client given, and sends no key with a client of one's own.
func geminiModel(ctx context.Context, env *wire.Env) (llms.Model, error) {
	return googleai.New(ctx,
		googleai.WithAPIKey("agentsnap"), // generative-ai-go wants one; never sent
		googleai.WithHTTPClient(env.HTTPClient),
		googleai.WithDefaultModel(env.Model),
		func(o *googleai.Options) { o.ClientOptions = append(o.ClientOptions, option.WithEndpoint(env.BaseURL)) },
	)
}

// geminiRuntime is the tool-loop desk on llms/googleai.
var geminiRuntime = wire.Runtime("langchaingo-opsloop-googleai", loopRun(geminiModel, nil), wire.InferLineage())
