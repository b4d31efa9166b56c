// The OpenAI Agents SDK through the gateway: an agent with one function tool, run streamed.
import { Agent, run, setDefaultOpenAIClient, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';

setTracingDisabled(true);
setDefaultOpenAIClient(new OpenAI({ baseURL: `${process.env.GATEWAY_URL}/v1`, apiKey: process.env.GATEWAY_KEY }));
const weather = tool({
  name: 'weather',
  description: 'The weather in a city',
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `${city}: sunny`,
});
const agent = new Agent({ name: 'assistant', model: process.env.MODEL, tools: [weather] });
const result = await run(agent, 'What is the weather in Paris?', { stream: true });
for await (const _event of result) {
  // Every event is read, as an application would.
}
await result.completed;
console.log(result.finalOutput);
