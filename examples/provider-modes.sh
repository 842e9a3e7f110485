#!/usr/bin/env bash
# Each way a request names its provider, with curl. Without OPENAI_API_KEY every call uses
# mock_response (gw answers by itself), so the script runs with no provider key at all.
#   GW_URL (default http://localhost:8787)  GW_API_KEY (a gw key)  OPENAI_API_KEY (optional)
set -euo pipefail
GW_URL=${GW_URL:-http://localhost:8787}
: "${GW_API_KEY:?set GW_API_KEY to a gw API key}"
MOCK=''
[ -z "${OPENAI_API_KEY:-}" ] && MOCK=',"mock_response":"Hello from gw"'
BODY='{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Say hi"}]'"$MOCK"'}'
chat() { curl -sS --fail-with-body "$GW_URL/v1/chat/completions" -H "x-gw-api-key: $GW_API_KEY" -H 'content-type: application/json' "$@" -d "$BODY"; echo; }

echo '# 1. provider name + provider key (Authorization is the provider key)'
chat -H 'x-gw-provider: openai' -H "Authorization: Bearer ${OPENAI_API_KEY:-none}"

echo '# 2. an inline config (a saved one is named by id or slug in the same header)'
chat -H "x-gw-config: {\"provider\":\"openai\",\"api_key\":\"${OPENAI_API_KEY:-none}\",\"retry\":{\"attempts\":2}}"

echo '# 3. a custom host (any OpenAI-compatible server; private addresses need TRUSTED_CUSTOM_HOSTS)'
if [ -n "${OPENAI_API_KEY:-}" ]; then
  chat -H 'x-gw-provider: openai' -H 'x-gw-custom-host: https://api.openai.com/v1' -H "Authorization: Bearer $OPENAI_API_KEY"
else
  echo '(skipped without OPENAI_API_KEY: gw checks the host before it would answer)'
fi

echo '# 4. a saved provider: see examples/save-provider.sh'
