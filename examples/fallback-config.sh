#!/usr/bin/env bash
# Saves a fallback config (OpenAI first, Anthropic when OpenAI fails with 429 or 5xx, each
# retried twice) and calls through it by slug. Without provider keys the call uses mock_response.
#   GW_URL (default http://localhost:8787)  GW_API_KEY (an admin key)  OPENAI_API_KEY, ANTHROPIC_API_KEY (optional)
set -euo pipefail
GW_URL=${GW_URL:-http://localhost:8787}
: "${GW_API_KEY:?set GW_API_KEY to a gw admin key}"

curl -sS "$GW_URL/v1/configs" -H "x-gw-api-key: $GW_API_KEY" -H 'content-type: application/json' -d @- <<JSON
{
  "name": "OpenAI, then Anthropic",
  "slug": "openai-then-anthropic",
  "config": {
    "strategy": { "mode": "fallback", "on_status_codes": [429, 500, 502, 503, 504] },
    "retry": { "attempts": 2 },
    "targets": [
      { "provider": "openai", "api_key": "${OPENAI_API_KEY:-sk-demo}", "override_params": { "model": "gpt-4o-mini" } },
      { "provider": "anthropic", "api_key": "${ANTHROPIC_API_KEY:-sk-ant-demo}", "override_params": { "model": "claude-sonnet-4-5", "max_tokens": 512 } }
    ]
  }
}
JSON
echo

MOCK=''
[ -z "${OPENAI_API_KEY:-}" ] && MOCK=',"mock_response":"Hello through a fallback config"'
curl -sS --fail-with-body -i "$GW_URL/v1/chat/completions" -H "Authorization: Bearer $GW_API_KEY" -H 'x-gw-config: openai-then-anthropic' \
  -H 'content-type: application/json' -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Say hi"}]'"$MOCK"'}'
echo
