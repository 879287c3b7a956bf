import { expect } from 'chai';
import type { ChatMessage } from '../../../src/chat/providers/provider.port.js';
import { toAnthropicMessages } from '../../../src/chat/providers/anthropic.provider.js';
import { toOllamaMessages } from '../../../src/chat/providers/ollama.provider.js';
import { toOpenAiMessages } from '../../../src/chat/providers/openai-format.js';

const IMAGE = { mimeType: 'image/png', data: 'iVBORw0KGgo=' };
const STEP: ChatMessage[] = [
  { role: 'user', content: 'show me' },
  {
    role: 'assistant',
    content: '',
    tool_calls: [
      { id: 'c1', name: 'get-tiny-image', arguments: {} },
      { id: 'c2', name: 'echo', arguments: { message: 'hi' } },
    ],
  },
  { role: 'tool', tool_call_id: 'c1', name: 'get-tiny-image', content: 'logo:\n[image: image/png, 8 bytes]', images: [IMAGE] },
  { role: 'tool', tool_call_id: 'c2', name: 'echo', content: 'Echo: hi' },
];

describe('a tool result’s images, as each provider takes them', () => {
  it('Anthropic: image blocks inside the tool_result, beside its text', () => {
    const { messages } = toAnthropicMessages(STEP);
    expect(messages.at(-1)).to.deep.equal({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'c1',
          content: [
            { type: 'text', text: 'logo:\n[image: image/png, 8 bytes]' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: IMAGE.data } },
          ],
        },
        { type: 'tool_result', tool_use_id: 'c2', content: 'Echo: hi' },
      ],
    });
  });

  it('OpenAI format: the step’s tool messages first, then one user message with the images as image_url parts', () => {
    const messages = toOpenAiMessages(STEP);
    expect(messages.map((message) => message.role)).to.deep.equal(['user', 'assistant', 'tool', 'tool', 'user']);
    expect(messages[2]).to.deep.equal({ role: 'tool', tool_call_id: 'c1', content: 'logo:\n[image: image/png, 8 bytes]' });
    expect(messages[4]).to.deep.equal({
      role: 'user',
      content: [
        { type: 'text', text: 'An image returned by the tool get-tiny-image (call c1):' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${IMAGE.data}` } },
      ],
    });
  });

  it('Ollama: the images on the tool message, as base64', () => {
    expect(toOllamaMessages(STEP)[2]).to.deep.equal({
      role: 'tool',
      content: 'logo:\n[image: image/png, 8 bytes]',
      tool_name: 'get-tiny-image',
      images: [IMAGE.data],
    });
  });

  it('leaves messages without images as they were', () => {
    const plain = STEP.map((message) => (message.role === 'tool' ? { ...message, images: undefined } : message)) as ChatMessage[];
    expect(toOpenAiMessages(plain)).to.have.length(4);
    expect(toOllamaMessages(plain)[2]).to.not.have.property('images');
  });
});
