import { expect } from 'chai';
import { ApiError } from '../../src/errors/catalogue.js';

/** The ApiError a promise rejects with; fails the test when it resolves or rejects otherwise. */
export async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected the fetch to fail');
}
