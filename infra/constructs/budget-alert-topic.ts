import { Stack } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';

export interface BudgetAlertTopicProps {
  /** An address the topic mails (`-c budgetAlertEmail=`); it must confirm the subscription. */
  readonly email?: string;
}

/**
 * The topic budget alerts go to (DESIGN §11): the functions that settle spending publish one message
 * per budget, threshold and period. It is apart from the alarm topic because its readers differ (who
 * pays for an account, not who runs the stack) and because its messages name accounts, keys and
 * people's e-mail addresses: it is encrypted with the AWS-managed SNS key, which the alarm topic
 * cannot be (CloudWatch alarms cannot publish to it). That key's policy lets any principal of the
 * account use it through SNS, so a publisher needs `sns:Publish` alone, and it costs nothing a month.
 */
export class BudgetAlertTopic extends Construct {
  readonly topic: sns.Topic;

  constructor(scope: Construct, id: string, props: BudgetAlertTopicProps = {}) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'Topic', {
      displayName: `model-gateway ${Stack.of(this).stackName} budget alerts`,
      enforceSSL: true,
      masterKey: kms.Alias.fromAliasName(this, 'SnsKey', 'alias/aws/sns'),
    });
    if (props.email) this.topic.addSubscription(new subscriptions.EmailSubscription(props.email));
  }
}
