package main

import (
	"log/slog"
	"net/url"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
)

func init() {
	liveDriver = func(baseURL, key, model string, e *env) (llm.Driver, error) {
		logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		return openai.New(openai.Config{BaseURL: baseURL, APIKey: key, Model: model, Logger: logger})
	}
}

// redactURL shows where a URL points without its query, fragment or user
// info, which may hold tokens.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(the given base URL)"
	}
	return u.Scheme + "://" + u.Host + u.Path
}
