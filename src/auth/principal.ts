/** The authenticated caller, as guards hand it to controllers. */
export interface Principal {
  id: string;
  email: string;
  name: string;
  isAdmin: boolean;
}
