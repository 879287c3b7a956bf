/**
 * How much a file's kind counts in knowledge-base answers: documentation and library code answer
 * questions; tests and data fixtures mostly repeat names (a test of a function matches its name as
 * well as the function does), so they weigh less, though they still answer when nothing else does.
 */
const TEST_FOLDER = String.raw`(?:tests?|__tests__|spec|testing)/`;
const TESTS = new RegExp(
  String.raw`(?:^|/)${TEST_FOLDER}|(?:^|/)(?:test_[^/]*|[^/]*_test\.py|[^/]*\.(?:test|spec)\.[a-z]+|conftest\.py)$`,
  'i',
);
/**
 * Data fixtures: folders that only ever hold them, and mock folders inside a test folder. A `mock`
 * folder elsewhere (a library's own `lib/mock/`) holds code that the library ships.
 */
const DATA = new RegExp(
  String.raw`(?:^|/)(?:fixtures?|testdata|test_data|__mocks__|mock_data|samples?|data)/|(?:^|/)${TEST_FOLDER}(?:[^/]+/)*mocks?/`,
  'i',
);

export const TEST_PRIOR = 0.7;
export const DATA_PRIOR = 0.6;

export function sourcePrior(filePath: string): number {
  if (DATA.test(filePath)) return DATA_PRIOR;
  if (TESTS.test(filePath)) return TEST_PRIOR;
  return 1;
}
