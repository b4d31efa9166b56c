// The AI SDK through the gateway: one answer over Responses and one tool-using turn over chat, streamed.
import { createOpenAI } from '@ai-sdk/openai';
import { stepCountIs, streamText, tool } from 'ai';
import { z } from 'zod';

const openai = createOpenAI({ baseURL: `${process.env.GATEWAY_URL}/v1`, apiKey: process.env.GATEWAY_KEY });
const weather = tool({
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, forecast: 'sunny' }),
});
for (const model of [openai(process.env.MODEL), openai.chat(process.env.MODEL)]) {
  const result = streamText({
    model,
    prompt: 'What is the weather in Paris?',
    tools: { weather },
    stopWhen: stepCountIs(3),
  });
  let text = '';
  for await (const delta of result.textStream) text += delta;
  console.log(text);
}
