import { expect } from 'chai';
import { MAX_RESULT_IMAGE_BYTES, toolResultContent } from '../../src/mcp-client/tool-result-text.js';

/** base64 of `bytes` zero bytes. */
const zeros = (bytes: number) => Buffer.alloc(bytes).toString('base64');

describe('toolResultContent: every kind of content reaches the model', () => {
  it('describes images and audio by type and size, and passes on the images a model may see', () => {
    const png = zeros(3_000);
    const { text, images } = toolResultContent({
      content: [
        { type: 'text', text: 'here it is:' },
        { type: 'image', data: png, mimeType: 'image/png' },
        { type: 'image', data: zeros(10), mimeType: 'image/tiff' },
        { type: 'audio', data: zeros(500), mimeType: 'audio/wav' },
      ],
      isError: false,
    });
    expect(text).to.equal('here it is:\n[image: image/png, 2.9 kB]\n[image: image/tiff, 10 bytes]\n[audio: audio/wav, 500 bytes]');
    expect(images, 'a type providers take; tiff is described only').to.deep.equal([{ mimeType: 'image/png', data: png }]);
  });

  it('keeps images within MAX_RESULT_IMAGE_BYTES in all: the rest are described only', () => {
    const half = zeros(MAX_RESULT_IMAGE_BYTES / 2);
    const { text, images } = toolResultContent({
      content: [0, 1, 2].map(() => ({ type: 'image' as const, data: half, mimeType: 'image/jpeg' })),
      isError: false,
    });
    expect(images).to.have.length(2);
    expect(text.split('\n')).to.have.length(3);
  });

  it('keeps a resource link’s name, title, URI, type and description', () => {
    const { text } = toolResultContent({
      content: [
        {
          type: 'resource_link',
          uri: 'demo://resource/static/text/1',
          name: 'text-1',
          mimeType: 'text/plain',
          description: 'a text resource',
        },
        { type: 'resource_link', uri: 'file:///etc/hosts', name: 'hosts', title: 'Hosts file' },
      ],
      isError: false,
    });
    expect(text).to.equal(
      '[resource link: text-1 <demo://resource/static/text/1> text/plain: a text resource]\n[resource link: hosts (Hosts file) <file:///etc/hosts>]',
    );
  });

  it('gives an embedded resource’s text, and describes a binary one', () => {
    const { text, images } = toolResultContent({
      content: [
        { type: 'resource', uri: 'demo://resource/1', mimeType: 'text/plain', text: 'Resource 1: This is a plaintext resource' },
        { type: 'resource', uri: 'demo://resource/2', mimeType: 'application/gzip', blob: zeros(2_048) },
      ],
      isError: false,
    });
    expect(text).to.equal(
      '[resource <demo://resource/1> text/plain]\nResource 1: This is a plaintext resource\n[resource <demo://resource/2> application/gzip, 2.0 kB of binary content, not shown]',
    );
    expect(images).to.deep.equal([]);
  });

  it('gives structured content where no text says it, and not twice where one does', () => {
    const structuredContent = { temperature: 22.5, conditions: 'Partly cloudy' };
    const said = toolResultContent({
      content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
      structuredContent,
      isError: false,
    });
    expect(said.text).to.equal(JSON.stringify(structuredContent));
    const differs = toolResultContent({ content: [{ type: 'text', text: 'Weather fetched.' }], structuredContent, isError: false });
    expect(differs.text).to.equal(`Weather fetched.\nstructured content: ${JSON.stringify(structuredContent)}`);
    const alone = toolResultContent({ content: [], structuredContent, isError: false });
    expect(alone.text).to.equal(JSON.stringify(structuredContent));
  });
});
