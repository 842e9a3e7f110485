#!/usr/bin/env bash
# Saves an OpenAI provider (its key encrypted at rest) and calls it as @my-openai, with nothing
# but the gw key in Authorization. Without OPENAI_API_KEY the call uses mock_response.
#   GW_URL (default http://localhost:8787)  GW_API_KEY (an admin key)  OPENAI_API_KEY (optional)
set -euo pipefail
GW_URL=${GW_URL:-http://localhost:8787}
: "${GW_API_KEY:?set GW_API_KEY to a gw admin key}"
SLUG=${GW_PROVIDER_SLUG:-my-openai}

curl -sS "$GW_URL/v1/providers" -H "x-gw-api-key: $GW_API_KEY" -H 'content-type: application/json' \
  -d "{\"name\":\"My OpenAI\",\"slug\":\"$SLUG\",\"ai_provider_id\":\"openai\",\"key\":\"${OPENAI_API_KEY:-sk-demo}\"}"
echo

MOCK=''
[ -z "${OPENAI_API_KEY:-}" ] && MOCK=',"mock_response":"Hello through a saved provider"'
curl -sS --fail-with-body "$GW_URL/v1/chat/completions" -H "Authorization: Bearer $GW_API_KEY" -H 'content-type: application/json' \
  -d '{"model":"@'"$SLUG"'/gpt-4o-mini","messages":[{"role":"user","content":"Say hi"}]'"$MOCK"'}'
echo
