package desk

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
)

// books is the catalog tool's fixed table: the tool is deterministic, so
// what a model did with it replays byte for byte.
var books = map[string]string{
	"Dune":     "Dune by Frank Herbert: 3 in stock, 12.50 EUR",
	"Kindred":  "Kindred by Octavia E. Butler: out of stock, 11.00 EUR, back on Monday",
	"Piranesi": "Piranesi by Susanna Clarke: 2 in stock, 10.00 EUR",
	"Solaris":  "Solaris by Stanislaw Lem: 1 in stock, 9.90 EUR",
}

// CatalogEntry is what the catalog tool reads from a call's arguments.
type CatalogEntry struct {
	Title string `json:"title" jsonschema:"description=the book's title, e.g. Dune"`
}

// Lookup returns the catalog's line for a title: author, stock, price.
func Lookup(title string) (string, error) {
	title = strings.TrimSpace(title)
	if b, ok := books[title]; ok {
		return b, nil
	}
	return "", fmt.Errorf("no book titled %q; the catalog has %s", title, strings.Join(slices.Sorted(maps.Keys(books)), ", "))
}

// newCatalog is the plain tool every agent of the desk has.
func newCatalog() (tool.InvokableTool, error) {
	return utils.InferTool(ToolCatalog, "Look a book up in the shop's catalog: author, stock and price.",
		func(_ context.Context, in CatalogEntry) (string, error) {
			out, err := Lookup(in.Title)
			if err != nil {
				return "error: " + err.Error(), nil // the model reads it and may try again
			}
			return out, nil
		})
}
