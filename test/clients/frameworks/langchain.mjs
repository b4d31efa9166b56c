// LangChain JS through the gateway: a chat model with a bound tool, streamed.
import { ChatOpenAI } from '@langchain/openai';

const model = new ChatOpenAI({
  model: process.env.MODEL,
  apiKey: process.env.GATEWAY_KEY,
  configuration: { baseURL: `${process.env.GATEWAY_URL}/v1` },
  streamUsage: true,
});
const withTools = model.bindTools([
  {
    type: 'function',
    function: {
      name: 'weather',
      description: 'The weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
]);
let text = '';
for await (const chunk of await model.stream('Say hello.')) text += chunk.content;
const call = await withTools.invoke('What is the weather in Paris?');
console.log(text, JSON.stringify(call.tool_calls));
