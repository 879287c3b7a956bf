import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];

/**
 * Writes a tiny feature-extraction model that transformers.js loads through its real code path:
 * a BERT WordPiece tokenizer over `words`, and an ONNX graph that is one Gather over an embedding
 * table (so a sentence vector is the mean of its word vectors). Word vectors come from a seeded
 * generator; words in the same `groups` entry share a direction, which makes them near neighbours.
 */
export async function writeTinyModel(dir: string, options: { words: string[]; groups?: string[][]; dimension?: number }): Promise<string> {
  const dimension = options.dimension ?? 16;
  const vocab = [...SPECIAL, ...new Set(options.words.map((w) => w.toLowerCase()))];
  const ids = new Map(vocab.map((token, index) => [token, index]));
  let seed = 7;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648 - 0.5;
  };
  const table = new Float32Array(vocab.length * dimension);
  for (let row = 0; row < vocab.length; row++) for (let col = 0; col < dimension; col++) table[row * dimension + col] = random();
  for (const group of options.groups ?? []) {
    const first = ids.get(group[0]!.toLowerCase());
    if (first === undefined) continue;
    for (const word of group.slice(1)) {
      const row = ids.get(word.toLowerCase());
      if (row === undefined) continue;
      for (let col = 0; col < dimension; col++) table[row * dimension + col] = table[first * dimension + col]! + random() * 0.05;
    }
  }

  const special = (token: string) => ({
    id: ids.get(token)!,
    content: token,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [ids.get('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [ids.get('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(ids),
    },
  };
  const tokenizerConfig = {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    model_max_length: 128,
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    pad_token: '[PAD]',
    unk_token: '[UNK]',
  };
  const config = { model_type: 'bert', architectures: ['BertModel'], hidden_size: dimension, vocab_size: vocab.length };

  const int64Input = (name: string) => ({
    name,
    type: { tensorType: { elemType: onnx.TensorProto.DataType.INT64, shape: { dim: [{ dimParam: 'batch' }, { dimParam: 'sequence' }] } } },
  });
  const model = onnx.ModelProto.create({
    irVersion: 7,
    producerName: 'aiops-tests',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: 'tiny-embedding',
      node: [
        {
          opType: 'Gather',
          input: ['embeddings', 'input_ids'],
          output: ['last_hidden_state'],
          attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }],
        },
      ],
      initializer: [
        {
          name: 'embeddings',
          dataType: onnx.TensorProto.DataType.FLOAT,
          dims: [vocab.length, dimension],
          rawData: new Uint8Array(table.buffer),
        },
      ],
      input: [int64Input('input_ids'), int64Input('attention_mask'), int64Input('token_type_ids')],
      output: [
        {
          name: 'last_hidden_state',
          type: {
            tensorType: {
              elemType: onnx.TensorProto.DataType.FLOAT,
              shape: { dim: [{ dimParam: 'batch' }, { dimParam: 'sequence' }, { dimValue: dimension }] },
            },
          },
        },
      ],
    },
  });

  await mkdir(path.join(dir, 'onnx'), { recursive: true });
  await writeFile(path.join(dir, 'config.json'), JSON.stringify(config));
  await writeFile(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizer));
  await writeFile(path.join(dir, 'tokenizer_config.json'), JSON.stringify(tokenizerConfig));
  await writeFile(path.join(dir, 'onnx', 'model.onnx'), onnx.ModelProto.encode(model).finish());
  return dir;
}
