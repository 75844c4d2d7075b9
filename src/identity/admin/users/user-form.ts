// The user forms (create, reset password): drafts and rules, free of HTTP.
import { passwordProblem } from '../../passwords';
import type { UserRole } from '../../../auth/scopes';
import { field, type FormBody } from '../form-body';

export interface UserDraft {
  email: string;
  name: string;
  role: UserRole | '';
  password: string;
}

export type UserErrors = Partial<Record<keyof UserDraft, string>>;

export const EMAIL_MAX_LENGTH = 254;
export const USER_NAME_MAX_LENGTH = 100;


export const emptyUserDraft = (): UserDraft => ({ email: '', name: '', role: 'user', password: '' });

export function userDraftFromForm(body: FormBody): UserDraft {
  const role = field(body, 'role');
  return {
    email: field(body, 'email').trim(),
    name: field(body, 'name').trim(),
    role: role === 'admin' || role === 'user' ? role : '',
    password: field(body, 'password'),
  };
}

/** Why an e-mail address cannot be used for sign-in, or undefined. */
export function emailProblem(email: string): string | undefined {
  if (!email) return 'Enter the e-mail address the person signs in with.';
  if (email.length > EMAIL_MAX_LENGTH) return `Use at most ${EMAIL_MAX_LENGTH} characters.`;
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return 'Enter an e-mail address such as name@example.com.';
  return undefined;
}

/** Sentence form of the password rule, for the field's error. */
export function passwordError(password: string): string | undefined {
  const why = passwordProblem(password);
  return why && `The password ${why}.`;
}

export function validateUserDraft(draft: UserDraft): UserErrors {
  const errors: UserErrors = {};
  const email = emailProblem(draft.email);
  if (email) errors.email = email;
  if (draft.name.length > USER_NAME_MAX_LENGTH) errors.name = `Use at most ${USER_NAME_MAX_LENGTH} characters.`;
  if (!draft.role) errors.role = 'Choose Admin or User.';
  const password = passwordError(draft.password);
  if (password) errors.password = password;
  return errors;
}

export const passwordFromForm = (body: FormBody): string => field(body, 'password');
