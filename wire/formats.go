package wire

// DefaultFormats returns the model APIs a Handler serves when its Config
// names none: every API agentsnap speaks, each on the paths its official
// SDKs call. A format that keeps state across calls (a chain of responses)
// is a new instance per call of DefaultFormats, so handlers share none.
func DefaultFormats() []Format {
	return []Format{
		ChatCompletions,
		Responses(),
		Gemini,
		AnthropicMessages,
	}
}
