/**
 * How much a file's kind counts in knowledge-base answers: documentation and library code answer
 * questions; tests and data fixtures mostly repeat names (a test of a function matches its name as
 * well as the function does), so they weigh less, though they still answer when nothing else does.
 */
const TESTS = /(?:^|\/)(?:tests?|__tests__|spec|testing)\/|(?:^|\/)(?:test_[^/]*|[^/]*_test\.py|[^/]*\.(?:test|spec)\.[a-z]+|conftest\.py)$/i;
const DATA = /(?:^|\/)(?:fixtures?|testdata|test_data|mocks?|samples?|mock_data|data)\//i;

export const TEST_PRIOR = 0.7;
export const DATA_PRIOR = 0.6;

export function sourcePrior(filePath: string): number {
  if (DATA.test(filePath)) return DATA_PRIOR;
  if (TESTS.test(filePath)) return TEST_PRIOR;
  return 1;
}
