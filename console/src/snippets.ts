/** Ready-to-paste client setups, filled in with this gateway's base URL and a model it serves. */
export interface Snippet {
  readonly id: string;
  readonly label: string;
  readonly code: string;
}

export const snippetsFor = (baseUrl: string, model: string): Snippet[] => [
  {
    id: 'openai',
    label: 'openai (Python)',
    code: `from openai import OpenAI

client = OpenAI(base_url="${baseUrl}/v1", api_key="sk-...")
reply = client.chat.completions.create(
    model="${model}",
    messages=[{"role": "user", "content": "Hello"}],
)
print(reply.choices[0].message.content)`,
  },
  {
    id: 'openai-node',
    label: 'openai (Node.js)',
    code: `import OpenAI from "openai";

const client = new OpenAI({ baseURL: "${baseUrl}/v1", apiKey: process.env.GATEWAY_API_KEY });
const reply = await client.chat.completions.create({
  model: "${model}",
  messages: [{ role: "user", content: "Hello" }],
});
console.log(reply.choices[0].message.content);`,
  },
  {
    id: 'anthropic',
    label: 'anthropic (Python)',
    code: `import anthropic

client = anthropic.Anthropic(base_url="${baseUrl}", api_key="sk-...")
message = client.messages.create(
    model="${model}",
    max_tokens=1024,
    messages=[{"role": "user", "content": "Hello"}],
)
print(message.content[0].text)`,
  },
  {
    id: 'google-genai',
    label: 'google-genai (Python)',
    code: `from google import genai
from google.genai import types

client = genai.Client(api_key="sk-...", http_options=types.HttpOptions(base_url="${baseUrl}"))
response = client.models.generate_content(model="${model}", contents="Hello")
print(response.text)`,
  },
  {
    id: 'curl',
    label: 'curl',
    code: `curl ${baseUrl}/v1/chat/completions \\
  -H "Authorization: Bearer $GATEWAY_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "${model}", "messages": [{"role": "user", "content": "Hello"}]}'`,
  },
  {
    id: 'claude-code',
    label: 'Claude Code',
    code: `export ANTHROPIC_BASE_URL="${baseUrl}"
export ANTHROPIC_AUTH_TOKEN="sk-..."
export ANTHROPIC_MODEL="${model}"
claude`,
  },
  {
    id: 'codex',
    label: 'Codex CLI (~/.codex/config.toml)',
    code: `model = "${model}"
model_provider = "model-gateway"

[model_providers.model-gateway]
name = "model-gateway"
base_url = "${baseUrl}/v1"
env_key = "GATEWAY_API_KEY"
wire_api = "responses"

# then: export GATEWAY_API_KEY="sk-..." && codex`,
  },
  {
    id: 'gemini-cli',
    label: 'Gemini CLI',
    code: `export GOOGLE_GEMINI_BASE_URL="${baseUrl}"
export GEMINI_API_KEY="sk-..."
gemini --model "${model}"`,
  },
];
