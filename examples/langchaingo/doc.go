// Package langchaingo is agentsnap's adoption kit for langchaingo.
package langchaingo
