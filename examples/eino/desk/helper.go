package desk

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
)

// helper is a helper agent offered as a tool. Each call builds its own
// ChatModelAgent (adk.NewAgentTool of a fresh agent): the model may call
// the same helper several times in one answer, the calls run at once, and
// one ChatModelAgent must not run twice at once.
type helper struct {
	info  *schema.ToolInfo
	build func(ctx context.Context) (tool.InvokableTool, error)
}

// helperTool returns the tool of a helper agent; withHistory hands it the
// whole conversation (adk.WithFullChatHistoryAsInput) instead of the
// request alone.
func helperTool(ctx context.Context, cfg Config, catalog tool.BaseTool, name, desc, instruction string, withHistory bool) (tool.BaseTool, error) {
	var opts []adk.AgentToolOption
	if withHistory {
		opts = append(opts, adk.WithFullChatHistoryAsInput())
	}
	build := func(ctx context.Context) (tool.InvokableTool, error) {
		conf := &adk.ChatModelAgentConfig{Name: name, Description: desc, Instruction: instruction, Model: cfg.Model}
		if catalog != nil {
			conf.ToolsConfig = toolsConfig(cfg, catalog)
		}
		agent, err := adk.NewChatModelAgent(ctx, conf)
		if err != nil {
			return nil, fmt.Errorf("desk: the %s agent: %w", name, err)
		}
		t, ok := adk.NewAgentTool(ctx, agent, opts...).(tool.InvokableTool)
		if !ok {
			return nil, fmt.Errorf("desk: the %s agent tool cannot be invoked", name)
		}
		return t, nil
	}
	proto, err := build(ctx)
	if err != nil {
		return nil, err
	}
	info, err := proto.Info(ctx)
	if err != nil {
		return nil, err
	}
	return &helper{info: info, build: build}, nil
}

func (h *helper) Info(context.Context) (*schema.ToolInfo, error) { return h.info, nil }

func (h *helper) InvokableRun(ctx context.Context, args string, opts ...tool.Option) (string, error) {
	t, err := h.build(ctx)
	if err != nil {
		return "", err
	}
	return t.InvokableRun(ctx, args, opts...)
}
